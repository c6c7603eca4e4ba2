//! Transparent huge pages, held back until a job is large.
//!
//! mimalloc asks Linux for huge pages (2 MiB) on its heap. They make a large job faster (a
//! 47 MB `compact` with `chars4` takes about 15% longer on 4 KiB pages, a fault for each, and
//! loading the o200k tables 30% longer), but a small job pays for them: each of the few pages a
//! one-message `compact` touches becomes 2 MiB, 12 MB in all against 6.5 MB. So the process
//! starts with them off and turns them on as soon as it knows the job is large: every command
//! but `compact` at once, `compact` when it will load a tokenizer's tables or once it has read
//! [`LARGE`] bytes of its input. The switch is the process's own (`prctl(PR_SET_THP_DISABLE)`,
//! checked by the kernel at each page fault), so the heap mimalloc set up for huge pages gets
//! them from then on; it is turned on before any command could start a child process, which
//! would inherit it. Elsewhere than Linux, or without mimalloc, both calls do nothing.

/// The input read by `compact` after which huge pages are allowed.
pub const LARGE: u64 = 4 << 20;

/// Turns huge pages off for this process, before anything runs: mimalloc sets up its heap in
/// a constructor of priority 101, before `main`, and the two pages it touches there would
/// already be huge. Ours has priority 100, so the linker's sorted `.init_array` runs it first.
#[cfg(all(feature = "mimalloc", target_os = "linux"))]
#[used]
#[unsafe(link_section = ".init_array.00100")]
static HOLD: extern "C" fn() = hold;

#[cfg(all(feature = "mimalloc", target_os = "linux"))]
extern "C" fn hold() {
    set_disabled(true);
}

/// Turns them back on (what the system allows for every process).
pub fn allow() {
    set_disabled(false);
}

#[cfg(all(feature = "mimalloc", target_os = "linux"))]
fn set_disabled(disabled: bool) {
    // SAFETY: PR_SET_THP_DISABLE takes one integer and changes only a flag of this process; it
    // touches no memory of ours. Its failure (an old kernel) leaves the system's setting, which is
    // what the process would have had anyway.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, libc::c_ulong::from(disabled), 0, 0, 0);
    }
}

#[cfg(not(all(feature = "mimalloc", target_os = "linux")))]
fn set_disabled(_disabled: bool) {}

/// A reader that allows huge pages once [`LARGE`] bytes have passed through it.
pub struct AllowWhenLarge<R> {
    inner: R,
    read: u64,
}

impl<R> AllowWhenLarge<R> {
    pub fn new(inner: R) -> Self {
        Self { inner, read: 0 }
    }
}

impl<R: std::io::Read> std::io::Read for AllowWhenLarge<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if self.read < LARGE {
            self.read += n as u64;
            if self.read >= LARGE {
                allow();
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use super::{AllowWhenLarge, LARGE};

    #[test]
    fn the_reader_passes_every_byte_across_the_switch() {
        let text: Vec<u8> = (0..LARGE + 12_345).map(|i| (i % 251) as u8).collect();
        let mut read = Vec::new();
        AllowWhenLarge::new(text.as_slice()).read_to_end(&mut read).unwrap();
        assert_eq!(read, text);
    }
}
