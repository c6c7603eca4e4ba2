//! A TOML file's error as a compiler shows one: the file with the line and column, what is wrong
//! in the user's words (serde's "expected f64" said as "a number"), then the line itself with a
//! caret under the place, each on its own line. The price table and the behaviour profiles read
//! their files through it.

/// `error` of `text` (the file `file`), with `hint` (what such a file holds) after the message:
///
/// ```text
/// mine.toml:4:8: extra `=`
///   |
/// 4 | fail = = 0.1
///   |        ^
/// ```
pub(crate) fn toml_words(file: &str, text: &str, error: &toml::de::Error, hint: &str) -> String {
    let message = error
        .message()
        .trim()
        .lines()
        // "extra `=`, expected nothing": the nothing adds nothing.
        .map(|line| ctxbench_compact::plain(line.trim_end_matches(", expected nothing")))
        .collect::<Vec<_>>()
        .join("; ");
    let hint = if hint.is_empty() {
        String::new()
    } else {
        format!("; {hint}")
    };
    let Some(span) = error.span() else {
        return format!("{file}: {message}{hint}");
    };
    let start = floor_char(text, span.start.min(text.len()));
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = text[..start].matches('\n').count() + 1;
    let shown = text[line_start..line_end].trim_end_matches('\r');
    let column = text[line_start..start].chars().count() + 1;
    // The caret spans the place on its line, at least one character.
    let end = floor_char(text, span.end.clamp(start, line_end.max(start)));
    let width = text[start..end].chars().count().max(1);
    let gutter = " ".repeat(line.to_string().len());
    let indent: String = shown
        .chars()
        .take(column - 1)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    format!(
        "{file}:{line}:{column}: {message}{hint}\n{gutter} |\n{line} | {shown}\n{gutter} | {indent}{}",
        "^".repeat(width)
    )
}

/// `at`, moved back to the start of the character it falls in.
fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Profile {
        distort: f64,
    }

    fn said(text: &str) -> String {
        let e = toml::from_str::<Profile>(text).expect_err("bad");
        toml_words("mine.toml", text, &e, "")
    }

    #[test]
    fn the_place_is_shown_under_its_line() {
        assert_eq!(
            said("# a profile\ndistort = \"high\"\n"),
            "mine.toml:2:11: the text \"high\" where a number is expected\n  |\n2 | distort = \"high\"\n  |           ^^^^^^"
        );
        assert_eq!(
            said("distort = = 0.1\n"),
            "mine.toml:1:11: extra `=`\n  |\n1 | distort = = 0.1\n  |           ^"
        );
    }
}
