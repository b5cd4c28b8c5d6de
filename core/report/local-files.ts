import type { Report } from './report.js';

/**
 * Local runs keep their objects as files (local/platform/file-object-store.ts), so a report that
 * says `s3://local-artifacts/runs/…` sends its reader to a bucket that does not exist (
 * item 7). This adds, beside the URIs report.json keeps (the contract), the file each one is: the
 * raw results and the model data a candidate was deployed with. report.md and report.html show
 * the file where a reader opens it.
 */

/**
 * The file the local store keeps `uri` in, as a reader of the report opens it: relative to the
 * report's folder when inside it, else absolute; undefined when the store has no file for it.
 */
export type LocalFileOf = (uri: string) => string | undefined;

export function withLocalFiles(report: Report, localFileOf: LocalFileOf): Report {
  return {
    ...report,
    candidates: report.candidates.map((candidate) => {
      const resultFile = candidate.resultUri === undefined ? undefined : localFileOf(candidate.resultUri);
      const deploy = candidate.deploy;
      // A Hugging Face Hub model has no model data: the container downloads it.
      const modelDataUrl = deploy?.createModel.PrimaryContainer.ModelDataUrl;
      const modelDataFile = modelDataUrl === undefined ? undefined : localFileOf(modelDataUrl);
      return {
        ...candidate,
        ...(resultFile === undefined ? {} : { resultFile }),
        ...(deploy === undefined || modelDataFile === undefined
          ? {}
          : { deploy: { ...deploy, modelDataFile } }),
      };
    }),
  };
}
