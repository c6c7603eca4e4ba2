//! Where a chart's text goes, in pixels: the title, the labels beside points, the legend and the
//! panels' titles, each measured with the embedded font, so that none is cut at the canvas's
//! edge, cut short with an ellipsis, or drawn over another text or the axes' tick labels. Names
//! too wide for their room wrap after a `,`, a `+` or a space. [`Layout`] holds the boxes a
//! picture has, for tests to check what `draw.rs` drew.

use std::sync::OnceLock;

use plotters::style::{FontStyle, IntoFont};

use super::error::PlotError;

/// Width and height of the plot, in pixels; the panels and the legend below it add to the height.
pub const SIZE: (u32, u32) = (960, 540);

/// A box in pixels: `left` and `top` inside it, `right` and `bottom` just past it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rect {
    /// Its left edge.
    pub left: i32,
    /// Its top edge.
    pub top: i32,
    /// Just past its right edge.
    pub right: i32,
    /// Just past its bottom edge.
    pub bottom: i32,
}

impl Rect {
    /// The box `width` by `height` whose top left corner is `(left, top)`.
    pub fn at(left: i32, top: i32, width: i32, height: i32) -> Rect {
        Rect {
            left,
            top,
            right: left + width,
            bottom: top + height,
        }
    }

    /// Whether the two boxes share a pixel.
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.left < other.right && other.left < self.right && self.top < other.bottom && other.top < self.bottom
    }

    /// Whether this box lies wholly inside `outer`.
    pub fn inside(&self, outer: &Rect) -> bool {
        self.left >= outer.left && self.right <= outer.right && self.top >= outer.top && self.bottom <= outer.bottom
    }

    /// The point of the box nearest `(x, y)`.
    pub(super) fn nearest(&self, (x, y): (i32, i32)) -> (i32, i32) {
        (x.clamp(self.left, self.right), y.clamp(self.top, self.bottom))
    }

    /// The box moved by `(dx, dy)`.
    fn shifted(&self, dx: i32, dy: i32) -> Rect {
        Rect::at(
            self.left + dx,
            self.top + dy,
            self.right - self.left,
            self.bottom - self.top,
        )
    }
}

/// The boxes of a chart's picture, as drawn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// The whole picture.
    pub canvas: Rect,
    /// Each line of the title.
    pub title: Vec<Rect>,
    /// The plot inside its axes.
    pub plot: Rect,
    /// The plot's tick labels, both axes.
    pub ticks: Vec<Rect>,
    /// The labels beside points, in the chart's order.
    pub labels: Vec<Rect>,
    /// Each line of each small multiple's title.
    pub panel_titles: Vec<Rect>,
    /// The legend's entries, glyph and text.
    pub legend: Vec<Rect>,
}

/// Registers DejaVu Sans (embedded) as the one font, once.
pub(super) fn register_font() -> Result<(), PlotError> {
    static LOADED: OnceLock<bool> = OnceLock::new();
    let loaded = LOADED.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular()).is_ok()
    });
    if *loaded { Ok(()) } else { Err(PlotError::Font) }
}

/// The width and height, in pixels, of `text` drawn at font size `size`: measured with the
/// embedded font, a little wider than most browsers' sans-serif shows an SVG's text.
pub(super) fn measure(text: &str, size: u32) -> (i32, i32) {
    let font = ("sans-serif", size).into_font();
    let height = (size as i32 * 6 + 4) / 5;
    match register_font().ok().and_then(|()| font.box_size(text).ok()) {
        Some((w, _)) => (w as i32 + 2, height),
        // Without the font (it is embedded: never in practice), DejaVu's widest average.
        None => ((text.chars().count() as i32 * size as i32 * 2 + 2) / 3, height),
    }
}

/// `text` in lines no wider than `width` at font size `size`, broken after a `, `, a `+`, a
/// ` · ` or a space (a piece wider than a line on its own is broken between characters).
pub(super) fn wrap(text: &str, size: u32, width: i32) -> Vec<String> {
    let fits = |s: &str| measure(s.trim_end(), size).0 <= width;
    let mut pieces: Vec<String> = Vec::new();
    let mut piece = String::new();
    for c in text.chars() {
        piece.push(c);
        if c == ' ' || c == '+' {
            pieces.push(std::mem::take(&mut piece));
        }
    }
    pieces.push(piece);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for piece in pieces {
        if fits(&format!("{line}{piece}")) {
            line.push_str(&piece);
            continue;
        }
        if !line.trim().is_empty() {
            lines.push(line.trim_end().to_owned());
            line = String::new();
        }
        for c in piece.chars() {
            if !line.is_empty() && !fits(&format!("{line}{c}")) {
                lines.push(line.trim_end().to_owned());
                line = String::new();
            }
            line.push(c);
        }
    }
    if !line.trim().is_empty() || lines.is_empty() {
        lines.push(line.trim_end().to_owned());
    }
    lines
}

/// Height of one legend row, in pixels.
pub(super) const LEGEND_ROW: i32 = 22;

/// The legend's font size.
pub(super) const LEGEND_TEXT: u32 = 14;

/// Width of a legend entry's glyph and the gap after it.
const GLYPH: i32 = 32;

/// A legend entry placed: where its glyph goes (left edge, middle of its first row, in the
/// legend's area) and its text's lines, one a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub x: i32,
    pub y: i32,
    pub lines: Vec<String>,
}

impl Entry {
    /// Its box, glyph and text, in the legend's area.
    pub(super) fn rect(&self) -> Rect {
        let width = self.lines.iter().map(|l| measure(l, LEGEND_TEXT).0).max().unwrap_or(0);
        Rect::at(
            self.x,
            self.y - LEGEND_ROW / 2,
            GLYPH + width,
            LEGEND_ROW * self.lines.len() as i32,
        )
    }
}

/// The legend's entries, two a row in a canvas `width` wide; an entry too wide for its column
/// takes the whole row, and one too wide for that wraps onto more. Returns them and the height
/// they take.
pub(super) fn legend_entries(texts: &[String], width: i32) -> (Vec<Entry>, i32) {
    let (margin, gap) = (40, 20);
    let column = (width - 2 * margin - gap) / 2;
    let (mut row, mut col) = (0, 0);
    let mut out = Vec::with_capacity(texts.len());
    for text in texts {
        let y = |row: i32| 12 + row * LEGEND_ROW;
        if GLYPH + measure(text, LEGEND_TEXT).0 <= column {
            out.push(Entry {
                x: margin + col * (column + gap),
                y: y(row),
                lines: vec![text.clone()],
            });
            col += 1;
            if col == 2 {
                (row, col) = (row + 1, 0);
            }
            continue;
        }
        if col == 1 {
            (row, col) = (row + 1, 0);
        }
        let lines = wrap(text, LEGEND_TEXT, width - 2 * margin - GLYPH);
        let rows = lines.len() as i32;
        out.push(Entry {
            x: margin,
            y: y(row),
            lines,
        });
        row += rows;
    }
    let rows = row + i32::from(col > 0);
    (out, rows * LEGEND_ROW)
}

/// Gap between a point and its label, in pixels.
const GAP: i32 = 6;

/// A label to place: its point, its text's size, and which side of the point it would rather go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Wanted {
    /// The point, in pixels.
    pub at: (i32, i32),
    /// The text's width and height.
    pub size: (i32, i32),
    /// Whether right of the point (where the room is) before left.
    pub toward_right: bool,
}

/// Places each label beside its point, in order, inside `area`: where there is room (on the side
/// it would rather, then the other; above, below, level; then moved a line at a time further up
/// or down), never over a label already placed, and, where it can help it, not over a point
/// (`points`, as boxes).
pub(super) fn place_labels(wanted: &[Wanted], area: Rect, points: &[Rect]) -> Vec<Rect> {
    let mut placed: Vec<Rect> = Vec::with_capacity(wanted.len());
    for &Wanted {
        at: (x, y),
        size: (w, h),
        toward_right,
    } in wanted
    {
        let right = Rect::at(x + GAP, y - h - GAP / 2, w, h);
        let left = Rect::at(x - GAP - w, y - h - GAP / 2, w, h);
        let sides = if toward_right { [right, left] } else { [left, right] };
        let mut candidates: Vec<Rect> = Vec::new();
        for side in sides {
            // Above the point, below it, beside it.
            candidates.extend([side, side.shifted(0, h + GAP), side.shifted(0, h / 2 + GAP / 2)]);
        }
        for k in 1..=12 {
            for side in sides {
                candidates.extend([side.shifted(0, -k * h), side.shifted(0, h + GAP + k * h)]);
            }
        }
        let fits = |r: &Rect| r.inside(&area) && !placed.iter().any(|p| p.overlaps(r));
        let chosen = candidates
            .iter()
            .find(|r| fits(r) && !points.iter().any(|p| p.overlaps(r)))
            .or_else(|| candidates.iter().find(|r| fits(r)))
            .copied()
            .unwrap_or_else(|| clamp(sides[0], area));
        placed.push(chosen);
    }
    placed
}

/// `r` moved the least to lie inside `area` (as far as it fits).
fn clamp(r: Rect, area: Rect) -> Rect {
    let (w, h) = (r.right - r.left, r.bottom - r.top);
    let left = r.left.min(area.right - w).max(area.left);
    let top = r.top.min(area.bottom - h).max(area.top);
    Rect::at(left, top, w, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_every_character_and_each_line_fits() {
        let text = "none, mask, window, clear-tool-uses, langchain-summarization, swe-agent-mask";
        let lines = wrap(text, 14, 300);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(lines.iter().all(|l| measure(l, 14).0 <= 300), "{lines:?}");
        assert_eq!(lines.join(" "), text, "broken after spaces only here");
        let lines = wrap("truncate+summarize:ratio=0.2", 14, 120);
        assert_eq!(lines.concat(), "truncate+summarize:ratio=0.2");
        assert_eq!(lines[0], "truncate+");
    }

    #[test]
    fn labels_never_overlap_each_other_and_stay_inside() {
        let area = Rect::at(100, 40, 800, 400);
        // Five labels at one point in the plot's bottom left corner, where the ticks are close.
        let wanted = Wanted {
            at: (104, 438),
            size: (120, 16),
            toward_right: true,
        };
        let placed = place_labels(&[wanted; 5], area, &[]);
        for (k, r) in placed.iter().enumerate() {
            assert!(r.inside(&area), "{r:?}");
            assert!(!placed[..k].iter().any(|p| p.overlaps(r)), "{placed:?}");
        }
    }
}
