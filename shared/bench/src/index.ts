export { benchEnv } from "./config.ts";
export {
  recordBenchRows,
  readBenchRows,
  processMemory,
  processCpuMs,
  MemorySampler,
  settledRss,
  memoryRows,
  startBenchProcess,
  MEMORY_TARGETS,
  IDLE_SETTLE_MS,
  type BenchRow,
  type RecordedBenchRow,
  type ProcessMemory,
  type BenchProcess,
} from "./bench-report.ts";
export {
  startServiceUnderBench,
  type ServiceUnderBench,
  type ServiceUnderBenchOptions,
} from "./bench-service.ts";
export { closedLoopLoad, type LoadRequest, type LoadResult } from "./http-load.ts";
export {
  cpuProbeMicros,
  readCpuTicks,
  stealPercent,
  parseCpuTicks,
  type CpuTicks,
} from "./machine-probe.ts";
export { benchMemoryLimit, chartMemoryLimitBytes, memoryQuantityBytes } from "./chart-limits.ts";
export {
  benchFiles,
  benchTable,
  formatNumber,
  markdownCell,
  ratioOf,
  shortfall,
} from "./report-table.ts";
export { curvePlot, isCurve, type CurveRow } from "./curve-plot.ts";
export { escapeXml, plotPanels, scenarioPlot, slug, type PlotPanel, type PlotRow } from "./plot.ts";
export {
  mergeRun,
  orderResults,
  parseResults,
  resultsJsonl,
  resultsReport,
  type BenchResults,
  type BenchRun,
  type BenchRunFile,
  type ResultRow,
} from "./results.ts";
export {
  failed,
  GROWTH_SIZES,
  growthDatabase,
  growthSizes,
  loadAverage,
  round1,
  summarise,
  timeOrFail,
  timeRuns,
  type GrowthSize,
  type Timing,
} from "./growth.ts";
export { deepPageOf, explainPlan, type QueryCost } from "./growth-queries.ts";
export type { FeedPage } from "./growth-detection.ts";
export { GROWTH_ZONE, runGrowthBench, type GrowthBench } from "./growth-run.ts";
export { runWrk, wrkScript, type WrkOptions, type WrkResult } from "./wrk.ts";
export {
  openLoop,
  openLoopBinary,
  SEQ,
  type LatencyPercentiles,
  type OpenLoopOptions,
  type OpenLoopResult,
} from "./open-loop.ts";
export {
  failuresOf,
  latencyAt,
  LOAD_SHARES,
  maxThroughput,
  measureReadScenario,
  readScenarioLines,
  readScenarioRows,
  type LatencyAtLoad,
  type MaxThroughput,
  type ReadLoadOptions,
  type ReadScenarioResult,
  type ReadTarget,
  type ReadTargets,
} from "./read-load.ts";
