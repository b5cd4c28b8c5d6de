/**
 * `npm run check:reports`: renders the report of a sweep, of a 20-candidate run and of a serve
 * target whose ramp test broke the SLA from the test fixtures, opens each report.html in headless Chromium and checks what a reader sees there: every
 * chart drawn with its title, no legend of more than MAX_LEGEND_ENTRIES entries, no chart wider
 * than the page, no two texts of a chart on top of each other, the sweep's heatmap with its
 * recommended cell. Screenshots of the page and of each chart go to bench/out/report-render/ to be
 * looked at. Needs Debian's chromium (`apt-get install -y chromium`), so it is not part of
 * `npm test` nor of CI; exits 1 when a check fails, 2 when Chromium cannot be run.
 *
 * Chromium is driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: requests
 * on fd 3, answers on fd 4, each a JSON message ended by a NUL byte), so no npm package and no
 * port is needed. The page's own policy forbids scripts; DevTools' Runtime.evaluate is not a
 * page script and measures the laid-out page.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { renderHtmlReport } from '../handlers/report/render-html.js';
import { renderMarkdownReport } from '../handlers/report/render-markdown.js';
import type { Report } from '../handlers/report/report.js';
import { RAMP_CHART_TITLE } from '../handlers/report/ramp-chart.js';
import { heatmapTitle, RECOMMENDED_MARK } from '../handlers/report/sweep-chart.js';
import { rampReport } from '../test/handlers/report/support/ramp-reports.js';
import { sweepReport, twentyCandidateReport } from '../test/handlers/report/support/sweep-reports.js';

const OUT = fileURLToPath(new URL('./out/report-render/', import.meta.url));
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
/** A laptop's page width: the report's body is at most 1240 px wide. */
const VIEWPORT = { width: 1280, height: 900 };
/** A legend longer than this is a colour lookup nobody can do. */
const MAX_LEGEND_ENTRIES = 10;
const TIMEOUT_MS = 60_000;

const CHART_TITLES = [
  'p95 and p99 latency vs load',
  'Throughput vs load',
  'Cost per 1M inferences at the sustainable load',
];

// ---------------------------------------------------------------------------------------------
// The DevTools protocol over a pipe

interface CdpMessage {
  readonly id?: number;
  readonly method?: string;
  readonly sessionId?: string;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

class Cdp {
  private nextId = 1;
  private buffer = '';
  private readonly pending = new Map<number, (message: CdpMessage) => void>();
  private readonly waiters: { method: string; resolve: () => void }[] = [];

  constructor(private readonly child: ChildProcess) {
    const output = child.stdio[4];
    if (output === null || output === undefined || !('on' in output))
      throw new Error('no DevTools pipe on fd 4');
    output.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let end = this.buffer.indexOf('\0');
      while (end !== -1) {
        this.dispatch(JSON.parse(this.buffer.slice(0, end)) as CdpMessage);
        this.buffer = this.buffer.slice(end + 1);
        end = this.buffer.indexOf('\0');
      }
    });
  }

  private dispatch(message: CdpMessage): void {
    if (message.id !== undefined) {
      this.pending.get(message.id)?.(message);
      this.pending.delete(message.id);
      return;
    }
    const index = this.waiters.findIndex((waiter) => waiter.method === message.method);
    if (index !== -1) {
      this.waiters[index]?.resolve();
      this.waiters.splice(index, 1);
    }
  }

  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const input = this.child.stdio[3];
    if (input === null || input === undefined || !('write' in input))
      throw new Error('no DevTools pipe on fd 3');
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`${method}: no answer in ${TIMEOUT_MS} ms`));
      }, TIMEOUT_MS);
      this.pending.set(id, (message) => {
        clearTimeout(timer);
        if (message.error === undefined) resolve(message.result ?? {});
        else reject(new Error(`${method}: ${message.error.message}`));
      });
      input.write(
        `${JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) })}\0`,
      );
    });
  }

  /** Resolves at the next event of this name (register before the call that causes it). */
  next(method: string): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ method, resolve }));
  }
}

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
    scrollWidth: document.documentElement.scrollWidth,
    scrollHeight: document.documentElement.scrollHeight,
    clientWidth: document.documentElement.clientWidth,
    text: document.body.innerText,
    charts,
  };
})()`;

// ---------------------------------------------------------------------------------------------
// The checks

interface Case {
  readonly name: string;
  readonly report: Report;
}

function checks(testCase: Case, page: PageLayout): string[] {
  const failures: string[] = [];
  const titles = [
    ...CHART_TITLES,
    ...(testCase.report.sweep === undefined ? [] : [heatmapTitle(testCase.report.sweep)]),
    ...(testCase.report.serveTarget?.ramp?.outcome === undefined ? [] : [RAMP_CHART_TITLE]),
  ];
  for (const title of titles) {
    if (!page.charts.some((chart) => chart.title === title)) failures.push(`no chart titled "${title}"`);
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
  if (testCase.report.sweep !== undefined && !page.text.includes(RECOMMENDED_MARK)) {
    failures.push(`the sweep grid does not mark the recommendation with ${RECOMMENDED_MARK}`);
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

async function checkCase(cdp: Cdp, testCase: Case): Promise<string[]> {
  const dir = join(OUT, testCase.name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const html = await renderHtmlReport(testCase.report);
  await writeFile(join(dir, 'report.html'), html);
  await writeFile(join(dir, 'report.md'), renderMarkdownReport(testCase.report));
  await writeFile(join(dir, 'report.json'), `${JSON.stringify(testCase.report, null, 2)}\n`);

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
  await cdp.send('Page.navigate', { url: pathToFileURL(join(dir, 'report.html')).href }, session);
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

  const shoot = async (file: string, clip: Box): Promise<void> => {
    const shot = await cdp.send(
      'Page.captureScreenshot',
      { format: 'png', captureBeyondViewport: true, clip: { ...clip, scale: 1 } },
      session,
    );
    await writeFile(join(dir, file), Buffer.from(String(shot.data), 'base64'));
  };
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
  console.log(
    `${testCase.name}: ${testCase.report.candidates.length} candidates, ${page.charts.length} charts ` +
      `(${page.charts.map((chart) => chart.title).join(' | ')}); legends: ${legends.join(', ')}; ` +
      `page ${page.scrollWidth}/${page.clientWidth} px wide; ${failures.length === 0 ? 'OK' : `${failures.length} failure(s)`}`,
  );
  for (const failure of failures) console.log(`  FAIL ${failure}`);
  return failures;
}

function startChromium(userDataDir: string): ChildProcess {
  // The flags that work on this project's machines (no sandbox as root, no GPU, and none of
  // Chromium's background connections, which a closed network refuses).
  return spawn(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      '--remote-debugging-pipe',
      `--user-data-dir=${userDataDir}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
}

const userDataDir = await mkdtemp(join(tmpdir(), 'report-render-check-'));
const chromium = startChromium(userDataDir);
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
let failures: string[] = [];
try {
  const cdp = new Cdp(chromium);
  for (const testCase of [
    { name: 'sweep', report: sweepReport() },
    { name: 'twenty-candidates', report: twentyCandidateReport() },
    { name: 'ramp', report: rampReport() },
  ]) {
    failures = [...failures, ...(await checkCase(cdp, testCase))];
  }
  await cdp.send('Browser.close').catch(() => undefined);
} catch (error) {
  console.error(`the check could not run: ${(error as Error).stack ?? String(error)}`);
  failures = ['the check could not run'];
} finally {
  const exited = new Promise((resolve) => chromium.once('exit', resolve));
  if (chromium.exitCode === null) chromium.kill();
  await exited;
  await rm(userDataDir, { recursive: true, force: true });
}
console.log(`screenshots and reports: ${OUT}`);
process.exit(failures.length === 0 ? 0 : 1);
