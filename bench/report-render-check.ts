/**
 * `npm run check:reports`: opens report pages in headless Chromium at 1400×900 and checks what a
 * reader sees there: every chart drawn with its title, no legend of more than MAX_LEGEND_ENTRIES
 * entries, no chart wider than the page, no two texts of a chart on top of each other, the verdict
 * on the first screen, a sweep's heatmap with its recommended cell. Two kinds of pages:
 *
 * - fixtures (bench/fixtures/): a sweep, a 20-candidate run, a serve target whose
 *   ramp broke the SLA, and an async run, rendered here;
 * - real runs: `npm start`'s example, local-sweep, local-routing, local-generative and local-async
 *   run locally to their end (bench/support/example-runs.ts, shortened load plans unless
 *   `--full-plans`), and the report.html each wrote is opened as it is; then the runs index those
 *   runs rewrote (runs/index.html), which must list each of them with links to files that exist.
 *
 * Screenshots of each page, of its first screen and of each chart go to bench/out/report-render/
 * (not committed) to be looked at. Needs Debian's chromium (`apt-get install -y chromium`) and
 * minutes of CPU, so it is not part of `npm test` nor of CI; exits 1 when a check fails (or a run
 * wrote no report), 2 when Chromium cannot be run.
 *
 * Options: --fixtures-only (no real run), --runs-only (no fixture), --full-plans (the examples'
 * own load plans). The page's own policy forbids scripts; DevTools' Runtime.evaluate is not a page
 * script and measures the laid-out page.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AsyncReport, Report } from '../core/report/index.js';
import {
  ASYNC_CHART_TITLES,
  RAMP_CHART_TITLE,
  renderAsyncHtmlReport,
  renderHtmlReport,
  renderMarkdownReport,
  RUNS_INDEX_HTML,
  RUNS_INDEX_JSON,
  type RunsIndexDocument,
  heatmapTitle,
  RECOMMENDED_MARK,
} from '../core/report/index.js';
import { asyncReport } from './fixtures/async-reports.js';
import { rampReport } from './fixtures/ramp-reports.js';
import { sweepReport, twentyCandidateReport } from './fixtures/sweep-reports.js';
import { Cdp, startChromium } from './support/devtools-pipe.js';
import { EXAMPLE_RUNS, runExample } from './support/example-runs.js';

const OUT = fileURLToPath(new URL('./out/report-render/', import.meta.url));
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
/** The first screen of a laptop: the report's body is at most 1240 px wide. */
const VIEWPORT = { width: 1400, height: 900 };
/** A legend longer than this is a colour lookup nobody can do. */
const MAX_LEGEND_ENTRIES = 10;

const CHART_TITLES = [
  'p95 and p99 latency vs load',
  'Throughput vs load',
  'Cost per 1M inferences at the sustainable load',
];

// ---------------------------------------------------------------------------------------------
// What is measured in the page

interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

interface ChartLayout {
  readonly title: string;
  readonly box: Box;
  /** Entries of each legend, by the legend's title. */
  readonly legends: readonly { readonly title: string; readonly entries: number }[];
  /** Pairs of texts whose boxes overlap by more than 2 px each way. */
  readonly overlaps: readonly string[];
}

interface PageLayout {
  /** The table of candidates the charts do not draw, with its heading, when there is one. */
  readonly notCharted?: Box;
  /** The top of the page's outcome line (the verdict), when it has one. */
  readonly outcomeTop?: number;
  readonly scrollWidth: number;
  readonly scrollHeight: number;
  readonly clientWidth: number;
  readonly text: string;
  readonly charts: readonly ChartLayout[];
}

/**
 * Runs in the page (DevTools' Runtime.evaluate): the laid-out boxes of each chart, its legends and
 * its texts, as a PageLayout. Vega writes a legend as `g.role-legend` with one text per entry in
 * `g.role-legend-label`, a chart's title as `g.role-title-text`. Plain JavaScript in a string: the
 * project compiles without the DOM's types, and the page has none of the transpiler's helpers.
 */
const MEASURE_PAGE = `(() => {
  const boxOf = (element) => {
    const rect = element.getBoundingClientRect();
    return { x: rect.x + window.scrollX, y: rect.y + window.scrollY, width: rect.width, height: rect.height };
  };
  const charts = [...document.querySelectorAll('figure svg')].map((svg) => {
    // Vega keeps an axis label it hides for overlapping its neighbour (labelOverlap) with opacity 0.
    const texts = [...svg.querySelectorAll('text')].filter(
      (text) => (text.textContent ?? '').trim() !== '' && text.getAttribute('opacity') !== '0',
    );
    const boxes = texts.map((text) => ({ text: text.textContent ?? '', rect: text.getBoundingClientRect() }));
    const overlaps = [];
    boxes.forEach((a, i) => {
      boxes.slice(i + 1).forEach((b) => {
        const dx = Math.min(a.rect.right, b.rect.right) - Math.max(a.rect.left, b.rect.left);
        const dy = Math.min(a.rect.bottom, b.rect.bottom) - Math.max(a.rect.top, b.rect.top);
        if (dx > 2 && dy > 2) overlaps.push('"' + a.text + '" over "' + b.text + '"');
      });
    });
    // A faceted chart's panel titles and headers are titles too, inside its cells and headers.
    const title = [...svg.querySelectorAll('.role-title-text text')].find(
      (text) => text.closest('.role-scope, .role-row-header, .role-column-header') === null,
    );
    return {
      title: title?.textContent ?? '',
      box: boxOf(svg),
      legends: [...svg.querySelectorAll('.role-legend')].map((legend) => ({
        title: legend.querySelector('.role-legend-title text')?.textContent ?? '',
        entries: legend.querySelectorAll('.role-legend-label text').length,
      })),
      overlaps,
    };
  });
  const table = document.querySelector('table.not-charted');
  const heading = document.querySelector('h3.not-charted');
  const notCharted =
    table === null || heading === null
      ? undefined
      : { ...boxOf(heading), height: boxOf(table).y + boxOf(table).height - boxOf(heading).y };
  return {
    ...(notCharted === undefined ? {} : { notCharted }),
    ...(document.querySelector('p.outcome') === null
      ? {}
      : { outcomeTop: boxOf(document.querySelector('p.outcome')).y }),
    scrollWidth: document.documentElement.scrollWidth,
    scrollHeight: document.documentElement.scrollHeight,
    clientWidth: document.documentElement.clientWidth,
    text: document.body.innerText,
    charts,
  };
})()`;

// ---------------------------------------------------------------------------------------------
// The checks

/** A page to check: the report document it shows and the file of its page. */
type Case =
  | { readonly name: string; readonly kind: 'optimization'; readonly report: Report; readonly html: string }
  | { readonly name: string; readonly kind: 'async'; readonly report: AsyncReport; readonly html: string }
  | {
      readonly name: string;
      readonly kind: 'index';
      readonly index: RunsIndexDocument;
      /** The runs the check made, each of which the page must list. */
      readonly runIds: readonly string[];
      readonly html: string;
    };

function expectedTitles(testCase: Case): string[] {
  if (testCase.kind === 'index') return [];
  if (testCase.kind === 'async') return Object.values(ASYNC_CHART_TITLES);
  const { report } = testCase;
  return [
    ...CHART_TITLES,
    ...(report.sweep === undefined ? [] : [heatmapTitle(report.sweep)]),
    ...(report.serveTarget?.ramp?.outcome === undefined ? [] : [RAMP_CHART_TITLE]),
  ];
}

function checks(testCase: Case, page: PageLayout): string[] {
  const failures: string[] = [];
  for (const title of expectedTitles(testCase)) {
    if (!page.charts.some((chart) => chart.title === title)) failures.push(`no chart titled "${title}"`);
  }
  if (testCase.kind === 'index') return [...failures, ...indexChecks(testCase, page)];
  if (page.outcomeTop === undefined) failures.push('no outcome line (p.outcome)');
  else if (page.outcomeTop > VIEWPORT.height) {
    failures.push(
      `the outcome is ${Math.round(page.outcomeTop)} px down: below the first screen (${VIEWPORT.height} px)`,
    );
  }
  if (page.scrollWidth > page.clientWidth) {
    failures.push(`the page scrolls sideways: ${page.scrollWidth} px of content in ${page.clientWidth} px`);
  }
  for (const chart of page.charts) {
    if (chart.box.x + chart.box.width > page.clientWidth) {
      failures.push(
        `"${chart.title}" is ${Math.round(chart.box.width)} px wide at x ${Math.round(chart.box.x)}: past the page's ${page.clientWidth} px`,
      );
    }
    for (const legend of chart.legends.filter((l) => l.entries > MAX_LEGEND_ENTRIES)) {
      failures.push(
        `"${chart.title}" has a legend "${legend.title}" of ${legend.entries} entries (at most ${MAX_LEGEND_ENTRIES})`,
      );
    }
    for (const overlap of chart.overlaps) failures.push(`"${chart.title}": text ${overlap}`);
  }
  if (
    testCase.kind === 'optimization' &&
    testCase.report.sweep !== undefined &&
    !page.text.includes(RECOMMENDED_MARK)
  ) {
    failures.push(`the sweep grid does not mark the recommendation with ${RECOMMENDED_MARK}`);
  }
  if (testCase.kind === 'async' && !page.text.includes(testCase.report.outcomeText)) {
    failures.push(`the page does not say "${testCase.report.outcomeText}"`);
  }
  return failures;
}

/**
 * The runs index (`runs/index.html`): every run the check made is listed, every link of every row
 * names a file that exists, and the page does not scroll sideways.
 */
function indexChecks(testCase: Extract<Case, { kind: 'index' }>, page: PageLayout): string[] {
  const failures: string[] = [];
  if (page.scrollWidth > page.clientWidth) {
    failures.push(`the page scrolls sideways: ${page.scrollWidth} px of content in ${page.clientWidth} px`);
  }
  for (const runId of testCase.runIds.filter((id) => !page.text.includes(id))) {
    failures.push(`run ${runId} is not listed`);
  }
  const runsDir = dirname(testCase.html);
  for (const run of testCase.index.runs) {
    for (const [kind, link] of Object.entries(run.links)) {
      if (typeof link === 'string' && !existsSync(join(runsDir, link))) {
        failures.push(`run ${run.runId}: its ${kind} link ${link} names no file`);
      }
    }
  }
  return failures;
}

function slug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
}

/** Writes a fixture's pages to its folder: report.html (and .md, .json) as a run would. */
async function fixtureCase(
  name: string,
  fixture: { kind: 'optimization'; report: Report } | { kind: 'async'; report: AsyncReport },
): Promise<Case> {
  const dir = join(OUT, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const html = join(dir, 'report.html');
  await writeFile(join(dir, 'report.json'), `${JSON.stringify(fixture.report, null, 2)}\n`);
  if (fixture.kind === 'async') {
    await writeFile(html, await renderAsyncHtmlReport(fixture.report));
    return { name, kind: 'async', report: fixture.report, html };
  }
  await writeFile(html, await renderHtmlReport(fixture.report));
  await writeFile(join(dir, 'report.md'), renderMarkdownReport(fixture.report));
  return { name, kind: 'optimization', report: fixture.report, html };
}

/** Opens a page, measures it, shoots it (page, first screen, each chart) and checks it. */
async function checkCase(cdp: Cdp, testCase: Case): Promise<{ failures: string[]; shots: string[] }> {
  const dir = join(OUT, testCase.name);
  await mkdir(dir, { recursive: true });
  const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  const session = String(sessionId);
  await cdp.send('Page.enable', {}, session);
  await cdp.send(
    'Emulation.setDeviceMetricsOverride',
    { ...VIEWPORT, deviceScaleFactor: 1, mobile: false },
    session,
  );
  const loaded = cdp.next('Page.loadEventFired');
  await cdp.send('Page.navigate', { url: pathToFileURL(testCase.html).href }, session);
  await loaded;
  const evaluated = await cdp.send(
    'Runtime.evaluate',
    { expression: MEASURE_PAGE, returnByValue: true },
    session,
  );
  if (evaluated.exceptionDetails !== undefined) {
    throw new Error(`measuring the page failed: ${JSON.stringify(evaluated.exceptionDetails)}`);
  }
  const page = (evaluated.result as { value: PageLayout }).value;

  const shots: string[] = [];
  const shoot = async (file: string, clip: Box): Promise<void> => {
    const shot = await cdp.send(
      'Page.captureScreenshot',
      { format: 'png', captureBeyondViewport: true, clip: { ...clip, scale: 1 } },
      session,
    );
    await writeFile(join(dir, file), Buffer.from(String(shot.data), 'base64'));
    shots.push(join(dir, file));
  };
  await shoot('first-screen.png', { x: 0, y: 0, ...VIEWPORT });
  await shoot('page.png', { x: 0, y: 0, width: VIEWPORT.width, height: page.scrollHeight });
  for (const chart of page.charts) {
    await shoot(`chart-${slug(chart.title)}.png`, { ...chart.box, x: 0, width: VIEWPORT.width });
  }
  if (page.notCharted !== undefined) {
    await shoot('table-not-charted.png', { ...page.notCharted, x: 0, width: VIEWPORT.width });
  }
  await cdp.send('Target.closeTarget', { targetId });

  const failures = checks(testCase, page);
  const legends = page.charts.flatMap((chart) => chart.legends.map((l) => `${l.title} ${l.entries}`));
  const what =
    testCase.kind === 'index'
      ? `runs index, ${testCase.index.runs.length} runs`
      : testCase.kind === 'async'
        ? `async, ${testCase.report.counts.inputs} inputs`
        : `${testCase.report.candidates.length} candidates`;
  console.log(
    `${testCase.name}: ${what}, ${page.charts.length} charts ` +
      `(${page.charts.map((chart) => chart.title).join(' | ')}); legends: ${legends.join(', ')}; ` +
      `page ${page.scrollWidth}/${page.clientWidth} px wide; ${failures.length === 0 ? 'OK' : `${failures.length} failure(s)`}`,
  );
  for (const failure of failures) console.log(`  FAIL ${failure}`);
  return { failures: failures.map((failure) => `${testCase.name}: ${failure}`), shots };
}

/** Runs each example locally and makes a case of the report it wrote; a run without one fails. */
async function realRunCases(fullPlans: boolean): Promise<{ cases: Case[]; failures: string[] }> {
  const cases: Case[] = [];
  const failures: string[] = [];
  const outDir = join(OUT, 'real-runs');
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
  for (const run of EXAMPLE_RUNS) {
    const started = Date.now();
    const result = await runExample(run, { outDir, short: !fullPlans, runId: `check-${stamp}-${run.name}` });
    console.log(
      `${run.name}: ${run.example} ran in ${Math.round((Date.now() - started) / 1000)} s, exit code ${result.exitCode}`,
    );
    if (result.reportHtml === undefined) {
      failures.push(`${run.name}: the run wrote no report (exit code ${result.exitCode})`);
      console.log(result.output.split('\n').slice(-20).join('\n'));
      continue;
    }
    const json = join(result.reportHtml, '..', 'report.json');
    const report: unknown = JSON.parse(await readFile(json, 'utf8'));
    cases.push(
      run.workflow === 'async'
        ? { name: run.name, kind: 'async', report: report as AsyncReport, html: result.reportHtml }
        : { name: run.name, kind: 'optimization', report: report as Report, html: result.reportHtml },
    );
  }
  // Each run rewrote the runs folder's index as it ended: the page lists them all.
  const runsDir = join(outDir, 'runs');
  const indexHtml = join(runsDir, RUNS_INDEX_HTML);
  if (existsSync(indexHtml)) {
    const index = JSON.parse(await readFile(join(runsDir, RUNS_INDEX_JSON), 'utf8')) as RunsIndexDocument;
    const runIds = EXAMPLE_RUNS.map((run) => `check-${stamp}-${run.name}`);
    cases.push({ name: 'runs-index', kind: 'index', index, runIds, html: indexHtml });
  } else {
    failures.push(`runs-index: the runs wrote no ${indexHtml}`);
  }
  return { cases, failures };
}

const { values: options } = parseArgs({
  options: {
    'fixtures-only': { type: 'boolean', default: false },
    'runs-only': { type: 'boolean', default: false },
    'full-plans': { type: 'boolean', default: false },
  },
  strict: true,
});

let failures: string[] = [];
const cases: Case[] = [];
if (!options['runs-only']) {
  cases.push(
    await fixtureCase('sweep', { kind: 'optimization', report: sweepReport() }),
    await fixtureCase('twenty-candidates', { kind: 'optimization', report: twentyCandidateReport() }),
    await fixtureCase('ramp', { kind: 'optimization', report: rampReport() }),
    await fixtureCase('async', { kind: 'async', report: asyncReport() }),
  );
}
if (!options['fixtures-only']) {
  // The runs first, Chromium after: a run's load test should not share the cores with a browser.
  const real = await realRunCases(options['full-plans']);
  cases.push(...real.cases);
  failures = [...failures, ...real.failures];
}

const userDataDir = await mkdtemp(join(tmpdir(), 'report-render-check-'));
const chromium = startChromium(CHROMIUM, userDataDir);
const started = new Promise<void>((resolve, reject) => {
  chromium.once('spawn', resolve);
  chromium.once('error', reject);
});
try {
  await started;
} catch (error) {
  console.error(
    `cannot start ${CHROMIUM}: ${(error as Error).message}; install it (apt-get install -y chromium) or set CHROMIUM to its path`,
  );
  process.exit(2);
}
const firstScreens: string[] = [];
try {
  const cdp = new Cdp(chromium);
  for (const testCase of cases) {
    const checked = await checkCase(cdp, testCase);
    failures = [...failures, ...checked.failures];
    firstScreens.push(...checked.shots.filter((shot) => shot.endsWith('first-screen.png')));
  }
  await cdp.send('Browser.close').catch(() => undefined);
} catch (error) {
  console.error(`the check could not run: ${(error as Error).stack ?? String(error)}`);
  failures = [...failures, 'the check could not run'];
} finally {
  const exited = new Promise((resolve) => chromium.once('exit', resolve));
  if (chromium.exitCode === null) chromium.kill();
  await exited;
  await rm(userDataDir, { recursive: true, force: true });
}
console.log(`first screens at ${VIEWPORT.width}×${VIEWPORT.height}:`);
for (const shot of firstScreens) console.log(`  ${shot}`);
console.log(`screenshots and reports: ${OUT}`);
if (failures.length > 0) console.log(`${failures.length} failure(s):\n  ${failures.join('\n  ')}`);
process.exit(failures.length === 0 ? 0 : 1);
