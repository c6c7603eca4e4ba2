//! The files a shell command writes to, read from its text as a shell would split it: output
//! redirections (`> FILE`, `>> FILE`, `&> FILE`, `cat <<'EOF' > FILE`), `sed -i … FILE`, `tee
//! FILE`, the destination of `cp` and `mv`, and `touch FILE`.
//!
//! Conservative: a word that is not literal (`$VAR`, a glob, a command substitution), `/dev/…`,
//! a descriptor (`2>&1`) and every read (`cat FILE`, `< FILE`) are not writes; heredoc bodies are
//! text, not commands. Paths are kept as written (not resolved against a `cd`), in order.

/// A piece of a command line, quotes removed.
#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    /// `;`, `&&`, `||`, `|`, `&`, a line break, `(` or `)`: the end of a simple command.
    End,
    /// `>`, `>>`, `>|`, `&>`, `&>>`: the next word is written.
    Out,
    /// `<`, `<<`, `<<-`, `<<<`, `<>`, `>&`, `<&`: the next word is read, a delimiter or a
    /// descriptor.
    Other,
}

/// The files `command` writes to, in the order its text names them, repeats included.
pub(crate) fn shell_writes(command: &str) -> Vec<String> {
    let mut written = Vec::new();
    let tokens = tokens(&without_heredoc_bodies(command));
    for simple in tokens.split(|t| *t == Token::End) {
        let mut words = Vec::new();
        let mut it = simple.iter();
        while let Some(token) = it.next() {
            match token {
                Token::Word(w) => words.push(w.as_str()),
                Token::Out => {
                    if let Some(Token::Word(target)) = it.next() {
                        keep(&mut written, target);
                    }
                }
                Token::Other => {
                    it.next();
                }
                Token::End => {}
            }
        }
        for target in command_writes(&words) {
            keep(&mut written, target);
        }
    }
    written
}

/// Adds `target` when it is a literal file, not a device or a descriptor.
fn keep(written: &mut Vec<String>, target: &str) {
    let literal = !target.is_empty()
        && target != "-"
        && !target.starts_with("/dev/")
        && !target.contains(['$', '`', '*', '?', '[', '{', '(', '&']);
    if literal {
        written.push(target.to_owned());
    }
}

/// The files a simple command's words (redirections removed) write to, by the command's name.
fn command_writes<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let skip = |w: &&str| {
        ["sudo", "env", "time", "nohup", "command"].contains(w)
            || w.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            })
    };
    let mut words = words.iter().copied().skip_while(skip);
    let Some(program) = words.next() else { return Vec::new() };
    let args: Vec<&str> = words.collect();
    match program.rsplit('/').next().unwrap_or(program) {
        "sed" => sed_files(&args),
        "tee" => operands(&args, &[]),
        "touch" => operands(&args, &["-d", "-t", "-r"]),
        "cp" | "mv" => {
            if args.iter().any(|a| *a == "-t" || a.starts_with("--target-directory")) {
                return Vec::new();
            }
            let operands = operands(&args, &["-S"]);
            match operands.last() {
                Some(dest) if operands.len() >= 2 && !dest.ends_with('/') && *dest != "." => vec![*dest],
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

/// The words that are not options (nor the values of `valued` options), `--` ending options.
fn operands<'a>(args: &[&'a str], valued: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut options = true;
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        if options && a == "--" {
            options = false;
        } else if options && valued.contains(&a) {
            it.next();
        } else if !(options && a.starts_with('-') && a.len() > 1) {
            out.push(a);
        }
    }
    out
}

/// `sed` edits its files only in place (`-i`, `-i.bak`, `-Ei`, `--in-place`); its first operand
/// is the script unless one is given with `-e` or `-f`.
fn sed_files<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let in_place = args.iter().any(|a| {
        a.starts_with("--in-place")
            || a.strip_prefix('-').is_some_and(|flags| {
                !flags.starts_with('-')
                    && flags
                        .find('i')
                        .is_some_and(|i| flags[..i].chars().all(|c| "Enrsuz".contains(c)))
            })
    });
    if !in_place {
        return Vec::new();
    }
    let mut files = Vec::new();
    let mut script_given = false;
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        match a {
            "-e" | "-f" | "-l" => {
                script_given |= a != "-l";
                it.next();
            }
            _ if a.starts_with("--expression") || a.starts_with("--file") => script_given = true,
            _ if a.starts_with('-') && a.len() > 1 => {}
            // BSD's `sed -i '' …`: an empty suffix.
            "" => {}
            _ => files.push(a),
        }
    }
    if !script_given && !files.is_empty() {
        files.remove(0);
    }
    files
}

/// `text` without the bodies of its heredocs (`<<EOF`, `<<'EOF'`, `<<-"EOF"`): the lines after
/// the one that opens them, up to their delimiter.
fn without_heredoc_bodies(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending: std::collections::VecDeque<(String, bool)> = Default::default();
    for line in text.split_inclusive('\n') {
        if let Some((delimiter, tabs)) = pending.front() {
            let bare = line.trim_end_matches(['\n', '\r']);
            let bare = if *tabs { bare.trim_start_matches('\t') } else { bare };
            if bare == delimiter {
                pending.pop_front();
            }
            continue;
        }
        out.push_str(line);
        let mut rest = line;
        while let Some(at) = rest.find("<<") {
            let after = &rest[at + 2..];
            if let Some(here_string) = after.strip_prefix('<') {
                rest = here_string;
                continue;
            }
            let tabs = after.starts_with('-');
            let after = after.trim_start_matches('-').trim_start_matches([' ', '\t']);
            let (delimiter, used) = match after.chars().next() {
                Some(q @ ('\'' | '"')) => {
                    let end = after[1..].find(q).map_or(after.len(), |e| e + 1);
                    (after[1..end].to_owned(), (end + 1).min(after.len()))
                }
                _ => {
                    let end = after
                        .find(|c: char| c.is_whitespace() || ";&|<>()".contains(c))
                        .unwrap_or(after.len());
                    (after[..end].replace('\\', ""), end)
                }
            };
            if !delimiter.is_empty() {
                pending.push_back((delimiter, tabs));
            }
            rest = &after[used..];
        }
    }
    out
}

/// The tokens of a command line: words with their quotes removed, the ends of simple commands
/// and redirections; a `#` at a word's start comments the rest of the line out.
fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    // Whether a word is under way (`''` is a word, empty).
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    let end_word = |out: &mut Vec<Token>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            out.push(Token::Word(std::mem::take(word)));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            word.extend(chars.next());
                        }
                        _ => word.push(q),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(next) => {
                    in_word = true;
                    word.push(next);
                }
            },
            '#' if !in_word => {
                while chars.peek().is_some_and(|&n| n != '\n') {
                    chars.next();
                }
            }
            '>' | '<' => {
                // A descriptor number just before (`2>`) belongs to the redirection.
                if in_word && !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
                    word.clear();
                    in_word = false;
                }
                end_word(&mut out, &mut word, &mut in_word);
                let token = match (c, chars.peek().copied()) {
                    ('>', Some('>' | '|')) => {
                        chars.next();
                        Token::Out
                    }
                    ('>', Some('&')) | ('<', Some('&' | '>')) => {
                        chars.next();
                        Token::Other
                    }
                    ('>', _) => Token::Out,
                    ('<', Some('<')) => {
                        chars.next();
                        while chars.peek().is_some_and(|&n| n == '<' || n == '-') {
                            chars.next();
                        }
                        Token::Other
                    }
                    _ => Token::Other,
                };
                out.push(token);
            }
            '&' if chars.peek() == Some(&'>') => {
                end_word(&mut out, &mut word, &mut in_word);
                chars.next();
                if chars.peek() == Some(&'>') {
                    chars.next();
                }
                out.push(Token::Out);
            }
            ';' | '&' | '|' | '\n' | '(' | ')' => {
                end_word(&mut out, &mut word, &mut in_word);
                out.push(Token::End);
            }
            c if c.is_whitespace() => end_word(&mut out, &mut word, &mut in_word),
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut out, &mut word, &mut in_word);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(command: &str, expect: &[&str]) {
        assert_eq!(shell_writes(command), expect, "{command}");
    }

    #[test]
    fn writes_are_found() {
        check("cat > src/a.py <<'EOF'\nimport os\nEOF", &["src/a.py"]);
        check(
            "cat <<'EOF' > src/a.py\nx = 1 > 0\nprint(x) >> log\nEOF\necho done",
            &["src/a.py"],
        );
        check("cd /testbed && cat <<-EOF >notes.md\n\tif a > b\n\tEOF", &["notes.md"]);
        check("echo 'X = 1' >> src/settings.py", &["src/settings.py"]);
        check("git diff -- django/forms/models.py > patch.txt", &["patch.txt"]);
        check("sed -i 's/a/b/' src/a.py src/b.py", &["src/a.py", "src/b.py"]);
        check("sed -i.bak -e 's/a/b/' -e 's/c/d/' src/a.py", &["src/a.py"]);
        check("sed -Ei 's/a/b/' x.py && sed -i '' 's/a/b/' y.py", &["x.py", "y.py"]);
        check("echo hi | tee -a out.log other.txt", &["out.log", "other.txt"]);
        check(
            "cp django/forms/models.py django/forms/models.py.backup",
            &["django/forms/models.py.backup"],
        );
        check("mv -f a.txt b.txt", &["b.txt"]);
        check("touch -d yesterday a.py b.py", &["a.py", "b.py"]);
        check(
            "python run.py 2>&1 >out.txt; sudo FOO=1 touch c.py",
            &["out.txt", "c.py"],
        );
        check("ls &> all.log", &["all.log"]);
        check("(cd src && make) > build.log 2> err.log", &["build.log", "err.log"]);
    }

    #[test]
    fn reads_and_what_is_not_a_file_are_not_writes() {
        for command in [
            "cat src/a.py",
            "grep -n 'x > 1' src/a.py",
            "sed -n '1,20p' src/a.py",
            "sed 's/a/b/' src/a.py",
            "python a.py > /dev/null 2>&1",
            "python a.py 2>&1 | head",
            "sort < in.txt",
            "echo $X > $OUT",
            "echo x > out_*.txt",
            "cp a.py /tmp/",
            "cp -t dest a.py b.py",
            "mv a.py .",
            "tee",
            "cat <<< 'x > y'",
            "python -c \"print(1 > 0)\"",
            "echo 'a > b'",
            "# cat > commented.py",
            "ls src >& 2",
        ] {
            check(command, &[]);
        }
    }

    #[test]
    fn heredoc_bodies_are_text() {
        assert_eq!(
            without_heredoc_bodies("cat > a.py << \"END\"\nx > y\nEND\ntouch b\n"),
            "cat > a.py << \"END\"\ntouch b\n"
        );
        // Two on one line, bodies one after the other.
        assert_eq!(without_heredoc_bodies("cat <<A <<B\n1\nA\n2\nB\nls"), "cat <<A <<B\nls");
    }
}
