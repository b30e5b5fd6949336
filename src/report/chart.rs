//! Draws the SVG charts that sit beside the Markdown reports: grouped bars (shares
//! per category) and lines (values over a sequence of labels, or over time: dates
//! placed at their distance in days, under ticks of days, months or years).
//!
//! Charts are drawn with `plotters`' SVG backend and no font crate: text is left to
//! the viewer's `sans-serif` and its width is estimated from the character count,
//! so the output is a function of the chart's data alone, byte for byte, on every
//! machine. This module only draws; it computes no statistic and reads no table.

use anyhow::{anyhow, bail, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Holds one named series: one value per category of its chart, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    /// `None` where the category has no value (a share of nothing): no bar is drawn
    /// there, and a line has a gap rather than a point at 0.
    pub values: Vec<Option<f64>>,
}

/// Says how a line chart places its categories along the x axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XAxis {
    /// One slot of equal width each, labelled with its category.
    Slots,
    /// The categories are `YYYY-MM-DD` dates, strictly increasing, each at its
    /// distance in days from the others, under ticks of days, months or years.
    Days,
}

/// Holds what a chart shows: a title, the categories along the x axis, the series
/// drawn over them and the y axis' label and top value (the bottom is 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub title: String,
    /// The labels along the x axis, left to right: one per value of each series.
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    pub y_label: String,
    /// The top of the y axis; values above it are drawn at it.
    pub y_max: f64,
    /// Appended to each value printed on the chart (`"%"` for shares).
    pub unit: String,
}

/// The series' colours, in order (a colour-blind-safe palette, Okabe and Ito);
/// a ninth series takes the first colour again.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

/// The size of every chart, in pixels.
const WIDTH: u32 = 960;
const HEIGHT: u32 = 540;

/// Returns the colour of series `i`.
pub fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Returns `value` as the chart prints it: rounded to a whole number, then the unit.
pub fn value_label(value: f64, unit: &str) -> String {
    format!("{:.0}{unit}", value)
}

impl Chart {
    /// Fails when a series does not have one value per category, or a value or the
    /// top of the axis is not a finite number at least 0.
    fn check(&self) -> Result<()> {
        if self.categories.is_empty() {
            bail!("the chart '{}' has no category", self.title);
        }
        if !(self.y_max.is_finite() && self.y_max > 0.0) {
            bail!("the chart '{}' has no positive top value", self.title);
        }
        for series in &self.series {
            if series.values.len() != self.categories.len() {
                bail!(
                    "the series '{}' has {} values for {} categories",
                    series.name,
                    series.values.len(),
                    self.categories.len()
                );
            }
            if let Some(v) = series
                .values
                .iter()
                .flatten()
                .find(|v| !(v.is_finite() && **v >= 0.0))
            {
                bail!("the series '{}' holds the value {v}", series.name);
            }
        }
        Ok(())
    }
}

/// Returns the SVG of `chart` drawn as grouped bars: one group per category, one
/// bar per series in series order, each bar labelled with its value.
pub fn bars_svg(chart: &Chart) -> Result<String> {
    chart.check()?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        draw_bars(&root, chart).map_err(|e| anyhow!("drawing the chart '{}': {e}", chart.title))?;
        root.present()
            .map_err(|e| anyhow!("drawing the chart '{}': {e}", chart.title))?;
    }
    Ok(svg)
}

/// Returns the SVG of `charts` drawn as lines, one panel per chart of the usual
/// size, stacked top to bottom in one picture: one line per series through its
/// value at each category, placed along `axis`, each point marked and labelled with
/// its value, and a gap where a category has none.
pub fn lines_svg(charts: &[Chart], axis: XAxis) -> Result<String> {
    if charts.is_empty() {
        bail!("no chart to draw");
    }
    let mut placed = Vec::with_capacity(charts.len());
    for chart in charts {
        chart.check()?;
        placed.push(Placed::along(chart, axis)?);
    }
    let mut svg = String::new();
    {
        let height = HEIGHT * charts.len() as u32;
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let panels = root.split_evenly((charts.len(), 1));
        for ((panel, chart), placed) in panels.iter().zip(charts).zip(&placed) {
            draw_lines(panel, chart, placed)
                .map_err(|e| anyhow!("drawing the chart '{}': {e}", chart.title))?;
        }
        root.present()
            .map_err(|e| anyhow!("drawing the charts '{}': {e}", charts[0].title))?;
    }
    Ok(svg)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Drawn = std::result::Result<(), Box<dyn std::error::Error>>;
type Context<'b, 'a> =
    ChartContext<'b, SVGBackend<'a>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Holds where a chart's categories stand along the x axis, and its labels there.
struct Placed {
    /// The x axis' range.
    range: std::ops::Range<f64>,
    /// Each category's x, in order.
    at: Vec<f64>,
    /// The labels under the axis, each with its x.
    labels: Vec<(f64, String)>,
}

impl Placed {
    /// Returns the categories of `chart` placed along `axis`: slot `i` is `[i, i + 1)`
    /// with its label at its centre; a date is at its day number (days since
    /// 1970-01-01), the range padded by a twentieth of the span (at least a day) on
    /// either side, the labels at [`day_ticks`].
    fn along(chart: &Chart, axis: XAxis) -> Result<Placed> {
        let n = chart.categories.len();
        if axis == XAxis::Slots {
            let at: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
            let labels = at.iter().copied().zip(chart.categories.clone()).collect();
            return Ok(Placed {
                range: 0.0..n as f64,
                at,
                labels,
            });
        }
        let mut days = Vec::with_capacity(n);
        for date in &chart.categories {
            let day = day_number(date)
                .ok_or_else(|| anyhow!("the chart '{}': '{date}' is not a date", chart.title))?;
            if days.last().is_some_and(|&last| last >= day) {
                bail!(
                    "the chart '{}': '{date}' is not after the date before it",
                    chart.title
                );
            }
            days.push(day);
        }
        let (first, last) = (days[0], days[n - 1]);
        let pad = ((last - first) / 20).max(1);
        let (from, to) = (first - pad, last + pad);
        Ok(Placed {
            range: from as f64..to as f64,
            at: days.iter().map(|&d| d as f64).collect(),
            labels: day_ticks(from, to)
                .into_iter()
                .map(|(day, label)| (day as f64, label))
                .collect(),
        })
    }
}

/// Returns the day number of a `YYYY-MM-DD` date: days since 1970-01-01.
fn day_number(date: &str) -> Option<i64> {
    let (y, m, d) = crate::infra::date::parts(date)?;
    Some(crate::infra::date::day_end(y, m, d).div_euclid(86_400))
}

/// At most this many ticks label a time axis: ten-character dates, 15 px high, stay
/// apart on a plot about 870 px wide.
const MAX_TICKS: usize = 8;

/// Returns the ticks of a time axis from day `from` to day `to` (included), each
/// with its label: the finest of every day, every 2 days, every Monday, every other
/// Monday (`YYYY-MM-DD`); the first of every 1, 2, 3 or 6 months (`YYYY-MM`); the
/// first of January of every 1, 2, 5, 10, 20, 50 or 100 years (`YYYY`) that gives
/// at most [`MAX_TICKS`].
fn day_ticks(from: i64, to: i64) -> Vec<(i64, String)> {
    let label = |day: i64| crate::infra::date::from_unix(day * 86_400);
    // 1970-01-01 was a Thursday: day 4 was a Monday.
    for (step, offset) in [(1, 0), (2, 0), (7, 4), (14, 4)] {
        let start = from + (offset - from).rem_euclid(step);
        let ticks: Vec<i64> = (start..=to).step_by(step as usize).collect();
        if ticks.len() <= MAX_TICKS {
            return ticks.into_iter().map(|d| (d, label(d))).collect();
        }
    }
    let first = label(from);
    let (year, month) = (
        first[..4].parse().unwrap_or(1970),
        first[5..7].parse().unwrap_or(1),
    );
    let months = |every: i64| {
        let mut index: i64 = year * 12 + i64::from(month) - 1;
        index += (-index).rem_euclid(every);
        let mut ticks = Vec::new();
        loop {
            let (y, m) = (index.div_euclid(12), index.rem_euclid(12) as u32 + 1);
            let day = crate::infra::date::day_end(y, m, 1).div_euclid(86_400);
            if day > to {
                return ticks;
            }
            if day >= from {
                ticks.push((day, y, m));
            }
            index += every;
        }
    };
    for every in [1, 2, 3, 6] {
        let ticks = months(every);
        if ticks.len() <= MAX_TICKS {
            return ticks
                .into_iter()
                .map(|(day, y, m)| (day, format!("{y:04}-{m:02}")))
                .collect();
        }
    }
    for every in [1, 2, 5, 10, 20, 50, 100] {
        let ticks = months(every * 12);
        if ticks.len() <= MAX_TICKS {
            return ticks
                .into_iter()
                .map(|(day, y, _)| (day, format!("{y:04}")))
                .collect();
        }
    }
    Vec::new()
}

/// Draws the frame both kinds share: title, axes with the y label, and the labels
/// under the x axis, each centred at its x (see [`Placed`]). Returns the chart
/// context to draw the series in.
fn frame<'a, 'b>(
    root: &'b Area<'a>,
    chart: &Chart,
    placed: &Placed,
) -> std::result::Result<Context<'b, 'a>, Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let mut context = ChartBuilder::on(root)
        .caption(&chart.title, ("sans-serif", 26))
        .margin(16)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(placed.range.clone(), 0.0..chart.y_max)?;
    context
        .configure_mesh()
        .disable_x_mesh()
        .disable_x_axis()
        .x_labels(0)
        .y_labels(11)
        .max_light_lines(0)
        .y_desc(chart.y_label.as_str())
        .y_label_formatter(&|v| value_label(*v, &chart.unit))
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .draw()?;
    let style =
        TextStyle::from(("sans-serif", 17).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    context.draw_series(placed.labels.iter().map(|(x, name)| {
        EmptyElement::at((*x, 0.0)) + Text::new(name.clone(), (0, 6), style.clone())
    }))?;
    Ok(context)
}

fn draw_bars(root: &Area<'_>, chart: &Chart) -> Drawn {
    let placed = Placed::along(chart, XAxis::Slots)?;
    let mut context = frame(root, chart, &placed)?;
    let k = chart.series.len().max(1) as f64;
    // Each slot keeps a tenth on either side free, and splits the rest between the bars.
    let width = 0.8 / k;
    let label =
        TextStyle::from(("sans-serif", 15).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
    for (j, series) in chart.series.iter().enumerate() {
        let fill = colour(j).filled();
        let left = |i: usize| i as f64 + 0.1 + j as f64 * width;
        let values = || {
            series
                .values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.map(|v| (i, v)))
        };
        context
            .draw_series(values().map(|(i, v)| {
                Rectangle::new(
                    [(left(i), 0.0), (left(i) + width, v.min(chart.y_max))],
                    fill,
                )
            }))?
            .label(series.name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], fill));
        context.draw_series(values().map(|(i, v)| {
            EmptyElement::at((left(i) + width / 2.0, v.min(chart.y_max)))
                + Text::new(value_label(v, &chart.unit), (0, -2), label.clone())
        }))?;
    }
    legend(&mut context)
}

fn draw_lines(root: &Area<'_>, chart: &Chart, placed: &Placed) -> Drawn {
    let mut context = frame(root, chart, placed)?;
    let label =
        TextStyle::from(("sans-serif", 15).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
    for (j, series) in chart.series.iter().enumerate() {
        let stroke = colour(j).stroke_width(2);
        let at: Vec<Option<(f64, f64)>> = series
            .values
            .iter()
            .zip(&placed.at)
            .map(|(v, &x)| v.map(|v| (x, v.min(chart.y_max))))
            .collect();
        // A category without a value breaks the line: each run of values is a line
        // of its own, and the legend names the first (an empty one for a series
        // with no value at all, so that the legend still lists it).
        let mut runs = at
            .split(Option::is_none)
            .filter(|run| !run.is_empty())
            .map(|run| run.iter().flatten().copied().collect::<Vec<_>>());
        context
            .draw_series(LineSeries::new(runs.next().unwrap_or_default(), stroke))?
            .label(series.name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 12, y)], stroke));
        for run in runs {
            context.draw_series(LineSeries::new(run, stroke))?;
        }
        let points = || {
            at.iter()
                .zip(&series.values)
                .filter_map(|(p, v)| Some(((*p)?, (*v)?)))
        };
        context.draw_series(points().map(|(p, _)| Circle::new(p, 3, colour(j).filled())))?;
        context.draw_series(points().map(|(p, v)| {
            EmptyElement::at(p) + Text::new(value_label(v, &chart.unit), (0, -5), label.clone())
        }))?;
    }
    legend(&mut context)
}

/// Draws the series' names, top right, when there is more than one series.
fn legend<'b, 'a: 'b>(context: &mut Context<'b, 'a>) -> Drawn {
    context
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 16))
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shares() -> Chart {
        Chart {
            title: "Share of tools declaring each hint".into(),
            categories: vec!["all".into(), "typescript".into(), "python <&>".into()],
            series: vec![
                Series {
                    name: "readOnlyHint".into(),
                    values: vec![Some(50.0), Some(80.0), Some(0.0)],
                },
                Series {
                    name: "openWorldHint".into(),
                    values: vec![Some(25.0), Some(40.0), Some(100.0)],
                },
            ],
            y_label: "% of tools".into(),
            y_max: 100.0,
            unit: "%".into(),
        }
    }

    /// Returns the `height` of every `<rect>` filled with `colour`, in document order.
    fn rect_heights(svg: &str, colour: RGBColor) -> Vec<i64> {
        let fill = format!("fill=\"#{:02X}{:02X}{:02X}\"", colour.0, colour.1, colour.2);
        svg.split("<rect")
            .skip(1)
            .map(|rest| &rest[..rest.find("/>").unwrap_or(rest.len())])
            .filter(|attrs| attrs.contains(&fill))
            .map(|attrs| {
                let at = attrs.find("height=\"").expect("a rect has a height") + 8;
                let end = attrs[at..].find('"').unwrap() + at;
                attrs[at..end].parse().unwrap()
            })
            .collect()
    }

    /// Returns the content of every `<text>` element, trimmed, in document order.
    fn texts(svg: &str) -> Vec<&str> {
        svg.split("<text")
            .skip(1)
            .filter_map(|rest| {
                let start = rest.find('>')? + 1;
                let end = rest.find("</text>")?;
                Some(rest[start..end].trim())
            })
            .collect()
    }

    #[test]
    fn bars_are_the_same_bytes_twice_and_proportional_to_the_values() {
        let chart = shares();
        let svg = bars_svg(&chart).unwrap();
        assert_eq!(svg, bars_svg(&chart.clone()).unwrap());
        assert!(svg.starts_with("<svg"), "{svg}");
        for (j, series) in chart.series.iter().enumerate() {
            // The legend's swatch is the series' last rect of its colour.
            let heights = rect_heights(&svg, colour(j));
            assert_eq!(heights.len(), series.values.len() + 1, "{svg}");
            let values = || series.values.iter().flatten();
            let full = heights[..3]
                .iter()
                .zip(values())
                .find(|(_, &v)| v > 0.0)
                .map(|(&h, &v)| h as f64 * 100.0 / v)
                .unwrap();
            for (&h, &v) in heights.iter().zip(values()) {
                assert!(
                    (h as f64 - v / 100.0 * full).abs() <= 1.0,
                    "{}: height {h} for {v} (full {full})",
                    series.name
                );
            }
        }
        let texts = texts(&svg);
        for text in [
            "50%",
            "80%",
            "0%",
            "25%",
            "40%",
            "100%",
            "readOnlyHint",
            "typescript",
        ] {
            assert!(texts.contains(&text), "no '{text}' in {texts:?}");
        }
        // Text from outside is escaped as XML.
        assert!(texts.contains(&"python &lt;&amp;&gt;"), "{texts:?}");
    }

    #[test]
    fn lines_are_the_same_bytes_twice_and_label_each_point() {
        let mut chart = shares();
        chart.categories = vec![
            "2026-01-01".into(),
            "2026-02-01".into(),
            "2026-03-01".into(),
        ];
        let svg = lines_svg(std::slice::from_ref(&chart), XAxis::Slots).unwrap();
        assert_eq!(
            svg,
            lines_svg(std::slice::from_ref(&chart), XAxis::Slots).unwrap()
        );
        assert_eq!(svg.matches("<circle").count(), 6, "{svg}");
        assert!(texts(&svg).contains(&"2026-02-01"), "{svg}");
        assert!(svg.contains("<polyline"), "{svg}");

        // A category without a value is a gap: no point, no label, the line broken.
        let mut gapped = chart.clone();
        gapped.series[0].values[1] = None;
        let with_gap = lines_svg(std::slice::from_ref(&gapped), XAxis::Slots).unwrap();
        assert_eq!(with_gap.matches("<circle").count(), 5, "{with_gap}");
        let eighty = |svg: &str| texts(svg).iter().filter(|t| **t == "80%").count();
        assert_eq!(eighty(&with_gap), eighty(&svg) - 1, "{with_gap}");
        assert_eq!(
            with_gap.matches("<polyline").count(),
            svg.matches("<polyline").count() + 1,
            "one line becomes two: {with_gap}"
        );
        // A series with no value at all is still in the legend.
        gapped.series[0].values = vec![None; 3];
        let empty = lines_svg(std::slice::from_ref(&gapped), XAxis::Slots).unwrap();
        assert_eq!(empty.matches("<circle").count(), 3, "{empty}");
        assert!(texts(&empty).contains(&"readOnlyHint"), "{empty}");

        // Two charts are two panels, one above the other, in one picture.
        let mut second = chart.clone();
        second.title = "The second panel".into();
        let both = lines_svg(&[chart, second], XAxis::Slots).unwrap();
        assert!(
            both.starts_with(&format!("<svg width=\"{WIDTH}\" height=\"{}\"", 2 * HEIGHT)),
            "{both}"
        );
        assert_eq!(both.matches("<circle").count(), 12, "{both}");
        let texts = texts(&both);
        assert!(texts.contains(&"The second panel"), "{texts:?}");
        assert!(
            texts.contains(&"Share of tools declaring each hint"),
            "{texts:?}"
        );
    }

    /// Returns the `cx` of every `<circle>`, in document order.
    fn circle_xs(svg: &str) -> Vec<i64> {
        svg.split("<circle")
            .skip(1)
            .map(|rest| {
                let at = rest.find("cx=\"").expect("a circle has a cx") + 4;
                let end = rest[at..].find('"').unwrap() + at;
                rest[at..end].parse().unwrap()
            })
            .collect()
    }

    /// Returns the `x` of the `<text>` whose content is `label`.
    fn text_x(svg: &str, label: &str) -> Option<i64> {
        svg.split("<text").skip(1).find_map(|rest| {
            let start = rest.find('>')? + 1;
            let end = rest.find("</text>")?;
            if rest[start..end].trim() != label {
                return None;
            }
            let at = rest.find(" x=\"")? + 4;
            let close = rest[at..].find('"')? + at;
            rest[at..close].parse().ok()
        })
    }

    fn over(dates: &[&str]) -> Chart {
        Chart {
            title: "Over time".into(),
            categories: dates.iter().map(|d| d.to_string()).collect(),
            series: vec![Series {
                name: "readOnlyHint".into(),
                values: dates.iter().map(|_| Some(50.0)).collect(),
            }],
            y_label: "%".into(),
            y_max: 100.0,
            unit: "%".into(),
        }
    }

    #[test]
    fn dates_stand_at_their_distance_in_days() {
        // 2024-11-18 to 11-19 is one day; 11-19 to 2025-02-18 is 91 days (11 + 31 +
        // 31 + 18), and so is 2025-02-18 to 05-20 (10 + 31 + 30 + 20).
        let chart = over(&["2024-11-18", "2024-11-19", "2025-02-18", "2025-05-20"]);
        let svg = lines_svg(std::slice::from_ref(&chart), XAxis::Days).unwrap();
        assert_eq!(
            svg,
            lines_svg(std::slice::from_ref(&chart), XAxis::Days).unwrap()
        );
        let x = circle_xs(&svg);
        assert_eq!(x.len(), 4, "{svg}");
        let per_day = (x[3] - x[0]) as f64 / 183.0;
        assert!(per_day > 3.0, "{x:?}");
        for (i, days) in [(1, 1.0), (2, 92.0), (3, 183.0)] {
            let want = x[0] as f64 + days * per_day;
            assert!((x[i] as f64 - want).abs() <= 1.0, "{i}: {x:?}");
        }
        assert!((x[2] - x[1]) - (x[3] - x[2]) <= 1, "two quarters: {x:?}");
        // Over half a year the ticks are months, each at its first day: 2024-12-01 is
        // 13 days after 11-18, 2025-03-01 is 103 days after it.
        for (label, days) in [("2024-12", 13.0), ("2025-03", 103.0)] {
            let got = text_x(&svg, label).unwrap_or_else(|| panic!("no {label}: {svg}"));
            let want = x[0] as f64 + days * per_day;
            assert!(
                (got as f64 - want).abs() <= 1.0,
                "{label} at {got}, not {want}"
            );
        }
        // No date is written out under the axis, so none can crowd another.
        assert_eq!(text_x(&svg, "2024-11-19"), None, "{svg}");
        assert!(lines_svg(&[over(&["2025-01-02", "2025-01-01"])], XAxis::Days).is_err());
        assert!(lines_svg(&[over(&["2025-01-01", "2025-01-01"])], XAxis::Days).is_err());
        assert!(lines_svg(&[over(&["all"])], XAxis::Days).is_err());
    }

    #[test]
    fn time_ticks_are_days_months_or_years_by_the_span() {
        let day = |date: &str| day_number(date).unwrap();
        let labels = |from: &str, to: &str| -> Vec<String> {
            day_ticks(day(from), day(to))
                .into_iter()
                .map(|(d, label)| {
                    // Each tick stands at the first day its label names.
                    let first = match label.len() {
                        4 => format!("{label}-01-01"),
                        7 => format!("{label}-01"),
                        _ => label.clone(),
                    };
                    assert_eq!(day(&first), d, "{label}");
                    label
                })
                .collect()
        };
        assert_eq!(
            labels("2024-11-17", "2024-11-20"),
            ["2024-11-17", "2024-11-18", "2024-11-19", "2024-11-20"]
        );
        // 2024-11-18 was a Monday.
        assert_eq!(
            labels("2024-11-10", "2024-12-20"),
            [
                "2024-11-11",
                "2024-11-18",
                "2024-11-25",
                "2024-12-02",
                "2024-12-09",
                "2024-12-16"
            ]
        );
        assert_eq!(
            labels("2024-11-10", "2025-05-28"),
            ["2024-12", "2025-01", "2025-02", "2025-03", "2025-04", "2025-05"]
        );
        assert_eq!(
            labels("2024-12-15", "2026-12-31"),
            [
                "2025-01", "2025-04", "2025-07", "2025-10", "2026-01", "2026-04", "2026-07",
                "2026-10"
            ]
        );
        assert_eq!(
            labels("2019-06-01", "2026-01-01"),
            ["2020", "2021", "2022", "2023", "2024", "2025", "2026"]
        );
        assert_eq!(
            labels("1901-01-01", "2026-01-01"),
            ["1920", "1940", "1960", "1980", "2000", "2020"]
        );
        assert_eq!(day("1970-01-05") % 7, 4, "a Monday");
    }

    #[test]
    fn a_series_of_the_wrong_length_is_refused() {
        let mut chart = shares();
        chart.series[1].values.pop();
        let err = bars_svg(&chart).unwrap_err().to_string();
        assert!(err.contains("'openWorldHint' has 2 values for 3"), "{err}");
        chart.series[1].values.push(Some(f64::NAN));
        assert!(lines_svg(std::slice::from_ref(&chart), XAxis::Slots).is_err());
        chart.series[1].values.pop();
        chart.series[1].values.push(Some(-1.0));
        assert!(lines_svg(std::slice::from_ref(&chart), XAxis::Slots).is_err());
        chart.series[1].values.pop();
        chart.series[1].values.push(None);
        assert!(lines_svg(std::slice::from_ref(&chart), XAxis::Slots).is_ok());
        assert!(lines_svg(&[], XAxis::Slots).is_err());
    }
}
