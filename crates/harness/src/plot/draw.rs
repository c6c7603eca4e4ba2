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

use super::chart::{Chart, MarkKind, Style};

/// Width and height of the plot, in pixels; the legend below it adds a row per two entries.
pub const SIZE: (u32, u32) = (960, 540);

/// Height of one legend row, in pixels.
const LEGEND_ROW: u32 = 22;

/// The whole picture's size: the plot and its legend.
pub fn size(chart: &Chart) -> (u32, u32) {
    let rows = legend(chart).len().div_ceil(2) as u32;
    (SIZE.0, SIZE.1 + 12 + rows * LEGEND_ROW)
}

/// What a legend entry shows.
enum Glyph {
    Rule(usize),
    Series(usize),
    Mark(MarkKind),
}

fn legend(chart: &Chart) -> Vec<(Glyph, String)> {
    let mut out: Vec<(Glyph, String)> = chart
        .rules
        .iter()
        .enumerate()
        .map(|(k, r)| (Glyph::Rule(k), r.label.clone()))
        .collect();
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
/// else two decimals.
fn axis_format(whole: bool) -> impl Fn(&f64) -> String {
    move |v: &f64| match whole {
        true if (v - v.round()).abs() > 1e-9 => String::new(),
        true => crate::human::thousands(v.round().max(0.0) as u64),
        false => format!("{v:.2}"),
    }
}

const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
];

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

fn draw_on<DB: DrawingBackend>(chart: &Chart, root: DrawingArea<DB, Shift>) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (top, bottom) = root.split_vertically(SIZE.1);
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
        .x_label_formatter(&axis_format(x_whole))
        .y_label_formatter(&axis_format(y_whole))
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
        let color = PALETTE[k % PALETTE.len()];
        let line = color.stroke_width(2);
        let filled = color.filled();
        if series.style == Style::Line {
            c.draw_series(LineSeries::new(series.points.clone(), line))
                .map_err(err)?;
        }
        c.draw_series(series.points.iter().map(|&p| marker::<DB, (f64, f64)>(k, p, filled)))
            .map_err(err)?;
    }
    for mark in &chart.marks {
        let element = match mark.kind {
            MarkKind::Compaction => Circle::new(mark.at, 7, BLACK.stroke_width(1)).into_dyn(),
            MarkKind::Overflow => Cross::new(mark.at, 8, OVERFLOW.stroke_width(3)).into_dyn(),
        };
        c.draw_series(std::iter::once(element)).map_err(err)?;
    }
    // Labels sit beside their point, on the side with room.
    let middle = (x0 + x1) / 2.0;
    for label in &chart.labels {
        let (h, text) = if label.at.0 > middle {
            (HPos::Right, format!("{}  ", label.text))
        } else {
            (HPos::Left, format!("  {}", label.text))
        };
        let style = TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(h, VPos::Bottom));
        c.draw_series(std::iter::once(Text::new(text, label.at, style)))
            .map_err(err)?;
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
                let color = PALETTE[k % PALETTE.len()];
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
