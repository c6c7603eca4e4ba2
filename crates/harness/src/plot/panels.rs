//! The small multiples below a chart (the bill's panels): one panel of stacked bars per run, two
//! a row, on one shared scale, each titled in lines that fit its cell (a long list of strategies
//! that coincide wraps rather than running off the canvas).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::{Chart, Panel};
use super::error::PlotError;
use super::layout::{Rect, SIZE, measure, wrap};

/// Height of one row of small multiples with one line of title, in pixels: so that their text is
/// as large as the plot's when the picture is shown at its width.
const PANEL_ROW: u32 = 230;

/// A panel title's font size, and the height of its lines.
const TITLE: u32 = 16;
const TITLE_LINE: i32 = 20;

/// The colours of the bill's parts (Paul Tol's, apart from the series' Okabe–Ito).
pub(super) const PARTS: [RGBColor; 4] = [
    RGBColor(68, 68, 68),
    RGBColor(204, 51, 17),
    RGBColor(136, 204, 238),
    RGBColor(221, 204, 119),
];

/// Rows of small multiples, two a row.
fn rows(chart: &Chart) -> u32 {
    chart.panels.len().div_ceil(2) as u32
}

/// Each panel's title, in lines that fit its cell.
fn titles(chart: &Chart) -> Vec<Vec<String>> {
    chart
        .panels
        .iter()
        .map(|p| wrap(&p.title, TITLE, SIZE.0 as i32 / 2 - 24))
        .collect()
}

/// Lines of the longest title: every panel leaves room for as many, so that their plots line up.
fn title_lines(titles: &[Vec<String>]) -> i32 {
    titles.iter().map(Vec::len).max().unwrap_or(1).max(1) as i32
}

/// Height of the small multiples (none without panels).
pub(super) fn height(chart: &Chart) -> u32 {
    if chart.panels.is_empty() {
        return 0;
    }
    let extra = ((title_lines(&titles(chart)) - 1) * TITLE_LINE) as u32;
    36 + rows(chart) * (PANEL_ROW + extra)
}

/// Draws the small multiples into `area`; returns the boxes of their titles' lines.
pub(super) fn draw<DB: DrawingBackend>(chart: &Chart, area: &DrawingArea<DB, Shift>) -> Result<Vec<Rect>, PlotError> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError::Backend(e.to_string());
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
    let titles = titles(chart);
    let lines = title_lines(&titles);
    let (_, grid) = area.split_vertically(36);
    let cells = grid.split_evenly((rows(chart) as usize, 2));
    let mut boxes = Vec::new();
    for (k, ((Panel { bars, .. }, title), cell)) in chart.panels.iter().zip(&titles).zip(&cells).enumerate() {
        let (base, (width, _)) = (cell.get_base_pixel(), cell.dim_in_pixel());
        for (i, line) in title.iter().enumerate() {
            let y = 6 + i as i32 * TITLE_LINE;
            let style = TextStyle::from(("sans-serif", TITLE).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
            cell.draw(&Text::new(line.clone(), (width as i32 / 2, y), style))
                .map_err(err)?;
            let (w, h) = measure(line, TITLE);
            boxes.push(Rect::at(base.0 + (width as i32 - w) / 2, base.1 + y, w, h));
        }
        let mut c = ChartBuilder::on(cell)
            .margin(8)
            .margin_top(10 + lines * TITLE_LINE)
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
    Ok(boxes)
}
