//! Draws the SVG charts that sit beside the Markdown reports: grouped bars (shares
//! per category) and lines (values over a sequence of labels, such as dates).
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
/// value at each category, each point marked and labelled with its value, and a gap
/// where a category has none.
pub fn lines_svg(charts: &[Chart]) -> Result<String> {
    if charts.is_empty() {
        bail!("no chart to draw");
    }
    for chart in charts {
        chart.check()?;
    }
    let mut svg = String::new();
    {
        let height = HEIGHT * charts.len() as u32;
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        for (panel, chart) in root.split_evenly((charts.len(), 1)).iter().zip(charts) {
            draw_lines(panel, chart)
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

/// Draws the frame both kinds share: title, axes with the y label, and the category
/// names under the x axis, each centred under its slot `[i, i + 1)`. Returns the
/// chart context to draw the series in.
fn frame<'a, 'b>(
    root: &'b Area<'a>,
    chart: &Chart,
) -> std::result::Result<Context<'b, 'a>, Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let n = chart.categories.len() as f64;
    let mut context = ChartBuilder::on(root)
        .caption(&chart.title, ("sans-serif", 26))
        .margin(16)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..n, 0.0..chart.y_max)?;
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
    context.draw_series(chart.categories.iter().enumerate().map(|(i, name)| {
        EmptyElement::at((i as f64 + 0.5, 0.0)) + Text::new(name.clone(), (0, 6), style.clone())
    }))?;
    Ok(context)
}

fn draw_bars(root: &Area<'_>, chart: &Chart) -> Drawn {
    let mut context = frame(root, chart)?;
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

fn draw_lines(root: &Area<'_>, chart: &Chart) -> Drawn {
    let mut context = frame(root, chart)?;
    let label =
        TextStyle::from(("sans-serif", 15).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
    for (j, series) in chart.series.iter().enumerate() {
        let stroke = colour(j).stroke_width(2);
        let at: Vec<Option<(f64, f64)>> = series
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| v.map(|v| (i as f64 + 0.5, v.min(chart.y_max))))
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
        let svg = lines_svg(std::slice::from_ref(&chart)).unwrap();
        assert_eq!(svg, lines_svg(std::slice::from_ref(&chart)).unwrap());
        assert_eq!(svg.matches("<circle").count(), 6, "{svg}");
        assert!(texts(&svg).contains(&"2026-02-01"), "{svg}");
        assert!(svg.contains("<polyline"), "{svg}");

        // A category without a value is a gap: no point, no label, the line broken.
        let mut gapped = chart.clone();
        gapped.series[0].values[1] = None;
        let with_gap = lines_svg(std::slice::from_ref(&gapped)).unwrap();
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
        let empty = lines_svg(std::slice::from_ref(&gapped)).unwrap();
        assert_eq!(empty.matches("<circle").count(), 3, "{empty}");
        assert!(texts(&empty).contains(&"readOnlyHint"), "{empty}");

        // Two charts are two panels, one above the other, in one picture.
        let mut second = chart.clone();
        second.title = "The second panel".into();
        let both = lines_svg(&[chart, second]).unwrap();
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

    #[test]
    fn a_series_of_the_wrong_length_is_refused() {
        let mut chart = shares();
        chart.series[1].values.pop();
        let err = bars_svg(&chart).unwrap_err().to_string();
        assert!(err.contains("'openWorldHint' has 2 values for 3"), "{err}");
        chart.series[1].values.push(Some(f64::NAN));
        assert!(lines_svg(std::slice::from_ref(&chart)).is_err());
        chart.series[1].values.pop();
        chart.series[1].values.push(Some(-1.0));
        assert!(lines_svg(std::slice::from_ref(&chart)).is_err());
        chart.series[1].values.pop();
        chart.series[1].values.push(None);
        assert!(lines_svg(std::slice::from_ref(&chart)).is_ok());
        assert!(lines_svg(&[]).is_err());
    }
}
