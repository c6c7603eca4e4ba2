//! What the value of an `artifact` fact (a file the agent changed) must look like: a path, one
//! word, with a `/` or an extension, so that a final "which files did you change?" names files,
//! not a sentence about them. Scenario loading refuses any other value; `import` keeps only the
//! written paths that pass.

/// Why `value` is not a file's path, or `None` when it is one.
pub(crate) fn why_not_a_path(value: &str) -> Option<&'static str> {
    let last = value.rsplit('/').next().unwrap_or(value);
    if value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("a path is one word, without spaces or line breaks")
    } else if value.contains("://") {
        Some("it is an address (a URL), not a file")
    } else if !value.chars().any(|c| c.is_alphanumeric()) {
        Some("it has no letter or digit")
    } else if last.is_empty() || last == "." || last == ".." {
        Some("it names a folder; name the file")
    } else if !value.contains('/') && !last.contains('.') {
        Some("it has neither a `/` nor an extension; write a file at the top as `./NAME`")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_pass_and_sentences_folders_and_bare_words_do_not() {
        for ok in [
            "src/shop/cart.py",
            "/testbed/django/forms/models.py",
            "patch.txt",
            "./Makefile",
            ".env",
            "~/notes/todo.md",
            "django/forms/models.py.backup",
        ] {
            assert_eq!(why_not_a_path(ok), None, "{ok}");
        }
        for bad in [
            "src/a.py and src/b.py",
            "src/\nb.py",
            "https://example.com/a.py",
            "src/shop/",
            "../..",
            "Makefile",
            "three files",
            "---",
        ] {
            assert!(why_not_a_path(bad).is_some(), "{bad}");
        }
    }
}
