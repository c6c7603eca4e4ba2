//! Drawing charts with plotters, to SVG text and to PNG bytes.
//!
//! Text is drawn with DejaVu Sans, embedded in the binary and registered once, so no system font
//! is needed (CI machines have none). PNGs are drawn into a buffer and encoded with `png`, so the
//! same chart gives the same bytes. Colours come from the Okabe–Ito palette and every series
//! also has its own marker, so that a grey print still tells them apart.

use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::{BILL_PARTS, Chart, MarkKind, Panel, Style};

/// Width and height of the plot, in pixels; the legend below it adds a row per two entries.
pub const SIZE: (u32, u32) = (960, 540);

/// Height of one row of small multiples, in pixels: two panels a row, below the plot, so that
/// their text is as large as the plot's when the picture is shown at its width.
const PANEL_ROW: u32 = 230;

/// Height of one legend row, in pixels.
const LEGEND_ROW: u32 = 22;

/// Rows of small multiples, two a row.
fn panel_rows(chart: &Chart) -> u32 {
    chart.panels.len().div_ceil(2) as u32
}

/// Height of the small multiples below the plot (none without panels).
fn panels_height(chart: &Chart) -> u32 {
    if chart.panels.is_empty() {
        0
    } else {
        36 + panel_rows(chart) * PANEL_ROW
    }
}

/// The whole picture's size: the plot, the panels below it, and the legend.
pub fn size(chart: &Chart) -> (u32, u32) {
    let rows = legend(chart).len().div_ceil(2) as u32;
    (SIZE.0, SIZE.1 + panels_height(chart) + 12 + rows * LEGEND_ROW)
}

/// What a legend entry shows.
enum Glyph {
    Rule(usize),
    Series(usize),
    Mark(MarkKind),
    Part(usize),
}

/// The colours of the bill's parts (Paul Tol's, apart from the series' Okabe–Ito).
const PARTS: [RGBColor; 4] = [
    RGBColor(68, 68, 68),
    RGBColor(204, 51, 17),
    RGBColor(136, 204, 238),
    RGBColor(221, 204, 119),
];

fn legend(chart: &Chart) -> Vec<(Glyph, String)> {
    let mut out: Vec<(Glyph, String)> = Vec::new();
    if !chart.panels.is_empty() {
        out.extend(
            BILL_PARTS
                .iter()
                .enumerate()
                .map(|(k, p)| (Glyph::Part(k), format!("bars: {p}"))),
        );
    }
    out.extend(
        chart
            .rules
            .iter()
            .enumerate()
            .map(|(k, r)| (Glyph::Rule(k), r.label.clone())),
    );
    out.extend(
        chart
            .series
            .iter()
            .enumerate()
            .map(|(k, s)| (Glyph::Series(k), s.name.clone())),
    );
    if chart.marks.iter().any(|m| m.kind == MarkKind::Compaction) {
        out.push((Glyph::Mark(MarkKind::Compaction), "compaction before the call".into()));
    }
    if chart.marks.iter().any(|m| m.kind == MarkKind::Overflow) {
        out.push((
            Glyph::Mark(MarkKind::Overflow),
            "overflow: rejected by the server".into(),
        ));
    }
    out
}

fn rule_style(k: usize) -> ShapeStyle {
    (if k == 0 {
        RGBColor(60, 60, 60)
    } else {
        RGBColor(150, 150, 150)
    })
    .stroke_width(2)
}

const OVERFLOW: RGBColor = RGBColor(200, 0, 0);

/// Integers with thousands separators when every value is whole (ticks between them unlabelled),
/// else decimals enough for the axis's `span` (none past 100, as for means of tokens; two; four
/// under 0.1: cents of a dollar).
fn axis_format(whole: bool, span: f64) -> impl Fn(&f64) -> String {
    move |v: &f64| match whole {
        true if (v - v.round()).abs() > 1e-9 => String::new(),
        true => crate::human::thousands(v.round().max(0.0) as u64),
        false if span >= 100.0 => crate::human::thousands(v.round().max(0.0) as u64),
        false if span < 0.1 => format!("{v:.4}"),
        false => format!("{v:.2}"),
    }
}

/// A series' colour: its strategy's, the same in every chart ([`crate::report::colour`]).
fn series_colour(name: &str) -> RGBColor {
    let (r, g, b) = crate::report::colour::colour(name);
    RGBColor(r, g, b)
}

/// Why a chart could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw chart {chart}: {msg}")]
pub struct DrawError {
    /// The chart's name.
    pub chart: String,
    /// What went wrong.
    pub msg: String,
}

fn register_font() -> Result<(), String> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .map_err(|_| "the embedded DejaVu Sans font does not load".to_owned())
    })
    .clone()
}

fn marker<DB: DrawingBackend, C: Clone + 'static>(k: usize, at: C, style: ShapeStyle) -> DynElement<'static, DB, C> {
    match k % 4 {
        0 => Circle::new(at, 4, style).into_dyn(),
        1 => TriangleMarker::new(at, 5, style).into_dyn(),
        2 => Cross::new(at, 4, style.stroke_width(2)).into_dyn(),
        _ => Rectangle::new([at.clone(), at], style.stroke_width(7)).into_dyn(),
    }
}

/// The small multiples: one panel of stacked bars per run, on one shared scale.
fn draw_panels<DB: DrawingBackend>(chart: &Chart, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let calls = chart
        .panels
        .iter()
        .flat_map(|p| p.bars.iter().map(|b| b.0))
        .fold(1.0f64, f64::max);
    let top = chart
        .panels
        .iter()
        .flat_map(|p| p.bars.iter().map(|b| b.1.iter().sum::<f64>()))
        .fold(0.0f64, f64::max);
    let top = if top > 0.0 { top * 1.08 } else { 1.0 };
    let dollars = chart.panel_label.contains("dollars");
    let (_, grid) = area.split_vertically(36);
    let cells = grid.split_evenly((panel_rows(chart) as usize, 2));
    for (k, (panel, cell)) in chart.panels.iter().zip(&cells).enumerate() {
        let Panel { title, bars } = panel;
        let mut c = ChartBuilder::on(cell)
            .caption(title, ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(if k % 2 == 0 { 92 } else { 70 })
            .build_cartesian_2d(0.5..calls + 0.5, 0.0..top)
            .map_err(err)?;
        let calls_format = |v: &f64| format!("{v:.0}");
        let value_format = |v: &f64| {
            if dollars {
                format!("{v:.4}")
            } else {
                crate::human::thousands(v.max(0.0) as u64)
            }
        };
        let mut mesh = c.configure_mesh();
        mesh.label_style(("sans-serif", 13))
            .x_labels(6)
            .y_labels(4)
            .x_label_formatter(&calls_format)
            .y_label_formatter(&value_format)
            .light_line_style(RGBColor(240, 240, 240))
            .bold_line_style(RGBColor(225, 225, 225));
        if k % 2 == 0 {
            mesh.y_desc(&chart.panel_label).axis_desc_style(("sans-serif", 13));
        }
        mesh.draw().map_err(err)?;
        let rects = bars.iter().flat_map(|&(x, parts)| {
            let mut bottom = 0.0;
            parts
                .into_iter()
                .enumerate()
                .filter(|(_, v)| *v > 0.0)
                .map(move |(p, v)| {
                    let rect = Rectangle::new([(x - 0.4, bottom), (x + 0.4, bottom + v)], PARTS[p].filled());
                    bottom += v;
                    rect
                })
        });
        c.draw_series(rects).map_err(err)?;
    }
    Ok(())
}

fn draw_on<DB: DrawingBackend>(chart: &Chart, root: DrawingArea<DB, Shift>) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (top, rest) = root.split_vertically(SIZE.1);
    let (panels, bottom) = rest.split_vertically(panels_height(chart));
    if !chart.panels.is_empty() {
        draw_panels(chart, &panels)?;
    }
    let (x0, x1, y0, y1) = chart.bounds();
    let whole = |f: fn(&(f64, f64)) -> f64| chart.series.iter().flat_map(|s| &s.points).all(|p| f(p).fract() == 0.0);
    let (x_whole, y_whole) = (whole(|p| p.0), whole(|p| p.1));
    let mut c = ChartBuilder::on(&top)
        .caption(&chart.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    c.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .label_style(("sans-serif", 14))
        .x_label_formatter(&axis_format(x_whole, x1 - x0))
        .y_label_formatter(&axis_format(y_whole, y1 - y0))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(215, 215, 215))
        .draw()
        .map_err(err)?;
    for (k, rule) in chart.rules.iter().enumerate() {
        c.draw_series(DashedLineSeries::new(
            vec![(x0, rule.y), (x1, rule.y)],
            8 + 4 * k as u32,
            6,
            rule_style(k),
        ))
        .map_err(err)?;
    }
    for (k, series) in chart.series.iter().enumerate() {
        let color = series_colour(&series.name);
        let line = color.stroke_width(2);
        let filled = color.filled();
        if series.style == Style::Line {
            c.draw_series(LineSeries::new(series.points.clone(), line))
                .map_err(err)?;
        }
        c.draw_series(series.points.iter().map(|&p| marker::<DB, (f64, f64)>(k, p, filled)))
            .map_err(err)?;
    }
    for w in &chart.whiskers {
        let grey = RGBColor(90, 90, 90).stroke_width(1);
        let (x, y) = w.at;
        // An interval of no width (one seed, or a figure that cannot vary) draws nothing.
        let lines = [
            ((w.x.0, y), (w.x.1, y), w.x.1 > w.x.0),
            ((x, w.y.0), (x, w.y.1), w.y.1 > w.y.0),
        ];
        c.draw_series(
            lines
                .into_iter()
                .filter(|l| l.2)
                .map(|(a, b, _)| PathElement::new(vec![a, b], grey)),
        )
        .map_err(err)?;
    }
    for mark in &chart.marks {
        let element = match mark.kind {
            MarkKind::Compaction => Circle::new(mark.at, 7, BLACK.stroke_width(1)).into_dyn(),
            MarkKind::Overflow => Cross::new(mark.at, 8, OVERFLOW.stroke_width(3)).into_dyn(),
        };
        c.draw_series(std::iter::once(element)).map_err(err)?;
    }
    // Labels sit beside their point, on the side with room, each moved down a line while it
    // would overlap one already placed.
    let middle = (x0 + x1) / 2.0;
    let base = top.get_base_pixel();
    let mut placed: Vec<(i32, i32, i32)> = Vec::new(); // (left, right, baseline) in pixels
    for label in &chart.labels {
        let right_side = label.at.0 <= middle;
        let (h, text) = if right_side {
            (HPos::Left, format!("  {}", label.text))
        } else {
            (HPos::Right, format!("{}  ", label.text))
        };
        let (px, mut py) = c.backend_coord(&label.at);
        let (px, width) = (px - base.0, 7 * text.chars().count() as i32);
        let (left, right) = if right_side { (px, px + width) } else { (px - width, px) };
        py -= base.1;
        while placed
            .iter()
            .any(|&(l, r, y)| l < right && left < r && (y - py).abs() < 16)
        {
            py += 16;
        }
        placed.push((left, right, py));
        let style = TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(h, VPos::Bottom));
        top.draw(&Text::new(text, (px, py), style)).map_err(err)?;
    }
    // The legend, below the plot in two columns, so that it never hides the data.
    for (i, (glyph, text)) in legend(chart).into_iter().enumerate() {
        let x = 40 + (i as i32 % 2) * 460;
        let y = 12 + (i as i32 / 2) * LEGEND_ROW as i32;
        match glyph {
            Glyph::Rule(k) => bottom
                .draw(&PathElement::new(vec![(x, y), (x + 24, y)], rule_style(k)))
                .map_err(err)?,
            Glyph::Series(k) => {
                let color = series_colour(&chart.series[k].name);
                bottom
                    .draw(&PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(2)))
                    .map_err(err)?;
                bottom
                    .draw(&marker::<DB, (i32, i32)>(k, (x + 12, y), color.filled()))
                    .map_err(err)?;
            }
            Glyph::Mark(MarkKind::Compaction) => bottom
                .draw(&Circle::new((x + 12, y), 6, BLACK.stroke_width(1)))
                .map_err(err)?,
            Glyph::Mark(MarkKind::Overflow) => bottom
                .draw(&Cross::new((x + 12, y), 6, OVERFLOW.stroke_width(3)))
                .map_err(err)?,
            Glyph::Part(k) => bottom
                .draw(&Rectangle::new([(x + 4, y - 7), (x + 20, y + 7)], PARTS[k].filled()))
                .map_err(err)?,
        }
        let text: String = if text.chars().count() > 60 {
            text.chars().take(59).chain(['…']).collect()
        } else {
            text
        };
        bottom
            .draw(&Text::new(text, (x + 32, y - 8), ("sans-serif", 14)))
            .map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

/// The chart as SVG text.
pub fn svg(chart: &Chart) -> Result<String, DrawError> {
    let fail = |msg: String| DrawError {
        chart: chart.name.clone(),
        msg,
    };
    register_font().map_err(fail)?;
    let mut out = String::new();
    draw_on(
        chart,
        SVGBackend::with_string(&mut out, size(chart)).into_drawing_area(),
    )
    .map_err(fail)?;
    Ok(out)
}

/// The chart as PNG bytes.
pub fn png(chart: &Chart) -> Result<Vec<u8>, DrawError> {
    let fail = |msg: String| DrawError {
        chart: chart.name.clone(),
        msg,
    };
    register_font().map_err(fail)?;
    let (w, h) = size(chart);
    let mut pixels = vec![0u8; (w * h * 3) as usize];
    draw_on(
        chart,
        BitMapBackend::with_buffer(&mut pixels, (w, h)).into_drawing_area(),
    )
    .map_err(fail)?;
    let mut out = Vec::new();
    let mut encoder = ::png::Encoder::new(&mut out, w, h);
    encoder.set_color(::png::ColorType::Rgb);
    encoder.set_depth(::png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| fail(e.to_string()))?;
    writer.write_image_data(&pixels).map_err(|e| fail(e.to_string()))?;
    writer.finish().map_err(|e| fail(e.to_string()))?;
    Ok(out)
}
