//! Charts inline in the page: an SVG document as an element, a PNG as an `<img>` of base64 bytes.

use super::html::escape;

/// An SVG document as an element of the page (its XML declaration has no place in HTML).
pub fn svg_element(svg: &str) -> String {
    let svg = svg.trim_start();
    let svg = if svg.starts_with("<?xml") {
        &svg[svg.find("?>").map_or(0, |i| i + 2)..]
    } else {
        svg
    };
    svg.trim().to_owned()
}

/// A PNG as an `<img>` of the page, its bytes inline.
pub fn png_element(png: &[u8], title: &str) -> String {
    format!(
        "<img alt=\"{}\" src=\"data:image/png;base64,{}\">",
        escape(title),
        base64(png)
    )
}

/// Standard base64, with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (k, b)| n | u32::from(*b) << (16 - 8 * k));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_is_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
