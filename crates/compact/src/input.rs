//! Files as the tools read them, with what can be wrong before any JSON said in words: a folder
//! where a file belongs, an empty file, bytes that are not UTF-8 (at their line and column). A
//! UTF-8 byte-order mark, which editors on Windows write, is read past.

use std::io::Read;
use std::path::Path;

use crate::error::Error;

/// The byte-order mark some editors put at the start of a UTF-8 file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What is wrong with `path` before its content is read, if anything: a folder, an empty file,
/// or one that cannot be opened.
pub fn check_file(path: &Path) -> Result<(), Error> {
    let name = path.display().to_string();
    let said = |msg: String| Error::File {
        source_name: name.clone(),
        msg,
    };
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(said("no such file or folder".into())),
        Err(e) => Err(said(format!("cannot be read: {e}"))),
        Ok(m) if m.is_dir() => Err(said("is a folder; give a file".into())),
        Ok(m) if m.is_file() && m.len() == 0 => Err(said("is empty; a JSON document was expected".into())),
        Ok(_) => Ok(()),
    }
}

/// A file's text: checked as [`check_file`] does, its byte-order mark dropped, and bytes that are
/// not UTF-8 refused at their place.
pub fn read_text(path: &Path) -> Result<String, Error> {
    check_file(path)?;
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Error::File {
        source_name: name.clone(),
        msg: format!("cannot be read: {e}"),
    })?;
    text_of(bytes, &name)
}

/// `bytes` as text, `name` naming them in errors (see [`read_text`]).
pub fn text_of(mut bytes: Vec<u8>, name: &str) -> Result<String, Error> {
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = 1 + String::from_utf8_lossy(&before[start..]).chars().count();
        Error::Json {
            source_name: name.to_owned(),
            line,
            column,
            msg: format!("not UTF-8 text (the byte 0x{:02X}); save the file as UTF-8", bytes[at]),
        }
    })
}

/// A reader that reads past a leading byte-order mark.
pub fn skip_bom<R: Read>(reader: R) -> impl Read {
    SkipBom {
        inner: reader,
        head: Vec::new(),
        started: false,
    }
}

struct SkipBom<R> {
    inner: R,
    /// Bytes read while looking for the mark, still to be handed on.
    head: Vec<u8>,
    started: bool,
}

impl<R: Read> Read for SkipBom<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.started {
            self.started = true;
            let mut head = [0u8; 3];
            let mut n = 0;
            while n < 3 {
                match self.inner.read(&mut head[n..])? {
                    0 => break,
                    k => n += k,
                }
            }
            if head[..n] != *BOM {
                self.head = head[..n].to_vec();
            }
        }
        if !self.head.is_empty() {
            let n = self.head.len().min(buf.len());
            buf[..n].copy_from_slice(&self.head[..n]);
            self.head.drain(..n);
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_wrong_before_the_json_is_said_with_its_place() {
        assert_eq!(text_of(b"\xEF\xBB\xBF{}".to_vec(), "f").unwrap(), "{}");
        let e = text_of(b"{\n  \"a\": \"\xC3\xA9\xFF\"}".to_vec(), "f.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.json:2:10: not UTF-8 text (the byte 0xFF); save the file as UTF-8"
        );
        let mut read = String::new();
        skip_bom(&b"\xEF\xBB\xBF{\"x\": 1}"[..])
            .read_to_string(&mut read)
            .unwrap();
        assert_eq!(read, "{\"x\": 1}");
        read.clear();
        skip_bom(&b"{}"[..]).read_to_string(&mut read).unwrap();
        assert_eq!(read, "{}");
    }
}
