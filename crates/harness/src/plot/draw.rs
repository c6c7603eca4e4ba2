//! Drawing charts with plotters, to SVG text and to PNG bytes.
//!
//! Text is drawn with DejaVu Sans, embedded in the binary and registered once, so no system font
//! is needed (CI machines have none). PNGs are drawn into a buffer and encoded with `png`, so the
//! same chart gives the same bytes. Colours come from the Okabe–Ito palette and every series
//! also has its own marker, so that a grey print still tells them apart.

use plotters::coord::Shift;
use plotters::coord::ranged1d::{BoldPoints, Ranged};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::{BILL_PARTS, Chart, MarkKind, Style};
use super::error::{DrawError, PlotError};
pub use super::layout::SIZE;
use super::layout::{LEGEND_TEXT, Layout, Rect, Wanted, legend_entries, measure, place_labels, register_font, wrap};
use super::panels::{self, PARTS};

/// The title's font size, and the height of its lines.
const TITLE: u32 = 22;
const TITLE_LINE: i32 = 28;

/// The font size of the labels beside points.
const LABEL: u32 = 13;

/// Labelled ticks an axis asks for, and the length of a tick mark (its label sits twice that
/// from the axis).
const TICKS: usize = 11;
const TICK: i32 = 5;

/// The whole picture's size: the plot, the panels below it, and the legend.
pub fn size(chart: &Chart) -> (u32, u32) {
    let (_, legend) = legend_entries(&legend_texts(chart), SIZE.0 as i32);
    (SIZE.0, SIZE.1 + panels::height(chart) + 12 + legend as u32)
}

/// What a legend entry shows.
enum Glyph {
    Rule(usize),
    Series(usize),
    Mark(MarkKind),
    Part(usize),
}

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

/// The legend's texts, in order.
fn legend_texts(chart: &Chart) -> Vec<String> {
    legend(chart).into_iter().map(|(_, text)| text).collect()
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

/// The `k`th series' marker: a disc, a triangle, a cross or a ring (a square of no size, as
/// this once was, draws nothing in an SVG).
fn marker<DB: DrawingBackend, C: Clone + 'static>(k: usize, at: C, style: ShapeStyle) -> DynElement<'static, DB, C> {
    match k % 4 {
        0 => Circle::new(at, 4, style).into_dyn(),
        1 => TriangleMarker::new(at, 5, style).into_dyn(),
        2 => Cross::new(at, 4, style.stroke_width(2)).into_dyn(),
        _ => Circle::new(
            at,
            4,
            ShapeStyle {
                filled: false,
                stroke_width: 2,
                ..style
            },
        )
        .into_dyn(),
    }
}

/// Draws the chart; returns where its text went.
fn draw_on<DB: DrawingBackend>(chart: &Chart, root: DrawingArea<DB, Shift>) -> Result<Layout, PlotError> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError::Backend(e.to_string());
    root.fill(&WHITE).map_err(err)?;
    let (width, height) = root.dim_in_pixel();
    let mut layout = Layout {
        canvas: Rect::at(0, 0, width as i32, height as i32),
        ..Layout::default()
    };
    let (top, rest) = root.split_vertically(SIZE.1);
    let (panel_area, bottom) = rest.split_vertically(panels::height(chart));
    if !chart.panels.is_empty() {
        layout.panel_titles = panels::draw(chart, &panel_area)?;
    }
    // The title, in lines that fit the canvas, each centred.
    let title = wrap(&chart.title, TITLE, width as i32 - 32);
    for (i, line) in title.iter().enumerate() {
        let y = 10 + i as i32 * TITLE_LINE;
        let style = TextStyle::from(("sans-serif", TITLE).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
        top.draw(&Text::new(line.clone(), (width as i32 / 2, y), style))
            .map_err(err)?;
        let (w, h) = measure(line, TITLE);
        layout.title.push(Rect::at((width as i32 - w) / 2, y, w, h));
    }
    let (x0, x1, y0, y1) = chart.bounds();
    let whole = |f: fn(&(f64, f64)) -> f64| chart.series.iter().flat_map(|s| &s.points).all(|p| f(p).fract() == 0.0);
    let (x_format, y_format) = (
        axis_format(whole(|p| p.0), x1 - x0),
        axis_format(whole(|p| p.1), y1 - y0),
    );
    let mut c = ChartBuilder::on(&top)
        .margin(16)
        .margin_top(14 + title.len() as i32 * TITLE_LINE)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    c.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .label_style(("sans-serif", 14))
        .x_labels(TICKS)
        .y_labels(TICKS)
        .set_all_tick_mark_size(TICK)
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(215, 215, 215))
        .draw()
        .map_err(err)?;
    let (xs, ys) = c.plotting_area().get_pixel_range();
    let plot = Rect {
        left: xs.start,
        top: ys.start,
        right: xs.end,
        bottom: ys.end,
    };
    layout.plot = plot;
    // Where the mesh put its tick labels: below the x axis, left of the y axis, `2 * TICK` away.
    let spec = c.as_coord_spec();
    for v in spec.x_spec().key_points(BoldPoints(TICKS)) {
        let (text, px) = (x_format(&v), c.backend_coord(&(v, y0)).0);
        if !text.is_empty() && (plot.left..=plot.right).contains(&px) {
            let (w, h) = measure(&text, 14);
            layout.ticks.push(Rect::at(px - w / 2, plot.bottom + 2 * TICK, w, h));
        }
    }
    for v in spec.y_spec().key_points(BoldPoints(TICKS)) {
        let (text, py) = (y_format(&v), c.backend_coord(&(x0, v)).1);
        if !text.is_empty() && (plot.top..=plot.bottom).contains(&py) {
            let (w, h) = measure(&text, 14);
            layout.ticks.push(Rect::at(plot.left - 2 * TICK - w, py - h / 2, w, h));
        }
    }
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
    // Labels beside their points, inside the plot (clear of the tick labels), none over another;
    // one moved away from its point is tied to it by a thin line.
    let middle = (x0 + x1) / 2.0;
    let markers: Vec<Rect> = chart
        .series
        .iter()
        .flat_map(|s| &s.points)
        .map(|p| {
            let (x, y) = c.backend_coord(p);
            Rect::at(x - 5, y - 5, 11, 11)
        })
        .collect();
    let wanted: Vec<Wanted> = chart
        .labels
        .iter()
        .map(|l| Wanted {
            at: c.backend_coord(&l.at),
            size: measure(&l.text, LABEL),
            toward_right: l.at.0 <= middle,
        })
        .collect();
    layout.labels = place_labels(&wanted, plot, &markers);
    for (label, (rect, Wanted { at, .. })) in chart.labels.iter().zip(layout.labels.iter().zip(&wanted)) {
        let near = rect.nearest(*at);
        if (near.0 - at.0).abs().max((near.1 - at.1).abs()) > 10 {
            top.draw(&PathElement::new(
                vec![*at, near],
                RGBColor(150, 150, 150).stroke_width(1),
            ))
            .map_err(err)?;
        }
        // Anchored at the side toward its point: a browser's font, narrower than the one
        // measured, leaves the room spare on the far side.
        let (h, x) = if rect.right <= at.0 {
            (HPos::Right, rect.right - 1)
        } else {
            (HPos::Left, rect.left + 1)
        };
        let style = TextStyle::from(("sans-serif", LABEL).into_font()).pos(Pos::new(h, VPos::Top));
        top.draw(&Text::new(label.text.clone(), (x, rect.top), style))
            .map_err(err)?;
    }
    // The legend, below the plot in two columns, so that it never hides the data; names too
    // long for a column take the row, and wrap past it.
    let offset = bottom.get_base_pixel().1;
    let (entries, _) = legend_entries(&legend_texts(chart), width as i32);
    for ((glyph, _), entry) in legend(chart).into_iter().zip(entries) {
        let (x, y) = (entry.x, entry.y);
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
        for (i, line) in entry.lines.iter().enumerate() {
            let at = (x + 32, y - 8 + i as i32 * super::layout::LEGEND_ROW);
            bottom
                .draw(&Text::new(line.clone(), at, ("sans-serif", LEGEND_TEXT)))
                .map_err(err)?;
        }
        let rect = entry.rect();
        layout.legend.push(Rect::at(
            rect.left,
            rect.top + offset,
            rect.right - rect.left,
            rect.bottom - rect.top,
        ));
    }
    root.present().map_err(err)?;
    Ok(layout)
}

/// Where a chart's text goes when drawn: its title, plot, tick labels, labels, panels' titles
/// and legend, as boxes in pixels (the same for SVG and PNG).
pub fn layout(chart: &Chart) -> Result<Layout, DrawError> {
    let fail = |error: PlotError| DrawError {
        chart: chart.name.clone(),
        error,
    };
    register_font().map_err(fail)?;
    let mut out = String::new();
    draw_on(
        chart,
        SVGBackend::with_string(&mut out, size(chart)).into_drawing_area(),
    )
    .map_err(fail)
}

/// The chart as SVG text.
pub fn svg(chart: &Chart) -> Result<String, DrawError> {
    let fail = |error: PlotError| DrawError {
        chart: chart.name.clone(),
        error,
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
    let fail = |error: PlotError| DrawError {
        chart: chart.name.clone(),
        error,
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
    let encoding = |e| fail(PlotError::Png(e));
    let mut writer = encoder.write_header().map_err(encoding)?;
    writer.write_image_data(&pixels).map_err(encoding)?;
    writer.finish().map_err(encoding)?;
    Ok(out)
}
