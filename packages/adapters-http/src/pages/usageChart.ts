// A small server-rendered bar chart of figures per UTC day (the API & MCP page's usage at a glance; docs/service.md,
// Pages): stacked bars per series in an inline SVG that reads without JavaScript or CSS (an accessible <title> and
// <desc>, and a <title> per bar for a pointer), coloured by classes of the stylesheet (light and dark, each colour at
// least 3:1 against the card, WCAG 1.4.11). The same figures go into a table beside it (`usageTable`).
import { html, type Html } from "./layout.ts"

/** One stacked series: a label in plain text and one value per day of the chart. */
export interface ChartSeries {
  readonly label: string
  readonly values: ReadonlyArray<number>
}

export interface ChartOptions {
  /** A prefix for the ids of the chart's <title> and <desc>, unique in the page. */
  readonly id: string
  readonly title: string
  /** What the figures count, for the description: "credits", "tool calls". */
  readonly unit: string
  /** The first millisecond of each day (UTC), oldest first. */
  readonly days: ReadonlyArray<number>
  readonly series: ReadonlyArray<ChartSeries>
}

/** The number of colours of the stylesheet's palette (`.series-0` …); a chart stacks at most this many series. */
export const seriesColours = 7

const width = 720
const height = 220
const left = 52
const right = 8
const top = 12
const bottom = 28
const plotWidth = width - left - right
const plotHeight = height - top - bottom

const numberFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 })

/** A figure as the pages write it: at most two decimals, thousands grouped (1,234.5). */
export const formatFigure = (value: number): string => numberFormat.format(value)

/** A UTC day as ISO 8601 (2026-11-27). */
export const isoDay = (day: number): string => new Date(day).toISOString().slice(0, 10)

const shortDay = (day: number): string => new Date(day).toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" })

/** The smallest of 1, 2, 2.5, 5 × 10^n at or above `value` (the axis' top), at least 1. */
export const niceCeiling = (value: number): number => {
  if (!(value > 1)) return 1
  const power = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power
  return 10 * power
}

const round = (n: number): number => Math.round(n * 100) / 100

/** The chart as an inline SVG with its legend. */
export const renderBarChart = (options: ChartOptions): Html => {
  const { days, series } = options
  const totals = days.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0))
  const total = totals.reduce((a, b) => a + b, 0)
  const busiest = totals.reduce((best, value, i) => (value > (totals[best] ?? 0) ? i : best), 0)
  const ceiling = niceCeiling(Math.max(0, ...totals))
  const slot = plotWidth / Math.max(1, days.length)
  const barWidth = Math.max(2, slot * 0.7)
  const y = (value: number) => top + plotHeight - (value / ceiling) * plotHeight
  const first = days[0]
  const last = days.at(-1)
  const period = first === undefined || last === undefined ? "" : `from ${isoDay(first)} to ${isoDay(last)} (UTC)`
  const description = total === 0
    ? `No ${options.unit} ${period}.`
    : `${formatFigure(total)} ${options.unit} in all ${period}, per day and stacked by app` +
      `${series.length > 0 ? ` (${series.map((s) => s.label).join(", ")})` : ""}; ` +
      `the busiest day was ${isoDay(days[busiest] ?? 0)} with ${formatFigure(totals[busiest] ?? 0)}.`
  const ticks = [0, ceiling / 2, ceiling]
  const bars = days.map((day, i) => {
    let base = 0
    const x = round(left + i * slot + (slot - barWidth) / 2)
    return series.map((s, k) => {
      const value = s.values[i] ?? 0
      if (value <= 0) return ""
      const y0 = y(base)
      base += value
      const y1 = y(base)
      return html`<rect class="series-${k % seriesColours}" x="${x}" y="${round(y1)}" width="${round(barWidth)}" height="${round(Math.max(1, y0 - y1))}"><title>${isoDay(day)} · ${s.label}: ${formatFigure(value)} ${options.unit}</title></rect>`
    })
  })
  const labels = days.flatMap((day, i) =>
    i % 7 === (days.length - 1) % 7
      ? [html`<text x="${round(left + i * slot + slot / 2)}" y="${height - 8}" text-anchor="middle">${shortDay(day)}</text>`]
      : [])
  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${options.id}-title ${options.id}-desc" xmlns="http://www.w3.org/2000/svg">
<title id="${options.id}-title">${options.title}</title>
<desc id="${options.id}-desc">${description}</desc>
${ticks.map((tick) => html`<line class="grid" x1="${left}" x2="${width - right}" y1="${round(y(tick))}" y2="${round(y(tick))}"></line>
<text x="${left - 6}" y="${round(y(tick)) + 4}" text-anchor="end">${formatFigure(tick)}</text>`)}
${bars}
<line class="axis" x1="${left}" x2="${width - right}" y1="${top + plotHeight}" y2="${top + plotHeight}"></line>
${labels}
</svg>
<figcaption><strong>${options.title}</strong>${series.length === 0 ? "" : html`
<ul class="legend">${series.map((s, k) => html`<li><span class="swatch series-${k % seriesColours}" aria-hidden="true"></span>${s.label}</li>`)}</ul>`}
</figcaption>
</figure>`
}
