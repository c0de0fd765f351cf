//! `printf` from kernels: JIT code writes one *record* per call on its stack and calls
//! [`record`] (the `ferrite_printf` built-in), which formats it at once and appends the text
//! to the launch's [`PrintfBuffer`]. The runtime hands the buffer in `GroupContext::printf`
//! and writes its [`PrintfBuffer::take_output`] to stdout when the kernel completes: in
//! order of group (linear id) and, within a group, of work-item (linear local id), each
//! work-item's lines in program order. OpenCL only asks for the output to be there at
//! completion; this order makes it deterministic.
//!
//! Record layout (little-endian `u64`s), built by `codegen/printf.rs`:
//! ```text
//! [0] address of the NUL-terminated format string (constant memory)
//! [1] linear group id   [2] linear local id   [3] number of arguments
//! then per argument: a descriptor `kind | bits << 8 | count << 16`
//! (kind 0 integer, 1 float, 2 pointer) and `count` values, one `u64` each
//! (integers zero-extended, floats as their IEEE bits).
//! ```
//! Conversions follow the OpenCL C `printf` (C99 flags, width, precision; vector
//! specifiers `%v4f`, `%v2hld`; length modifiers `hh`, `h`, `hl`, `l`), each one formatted
//! by the C library's `snprintf` so the text is exactly what a host `printf` prints.

use std::ffi::{c_char, c_int, CStr};
use std::sync::Mutex;

unsafe extern "C" {
    fn snprintf(buf: *mut c_char, n: usize, fmt: *const c_char, ...) -> c_int;
}

const KIND_INT: u64 = 0;
const KIND_FLOAT: u64 = 1;
const KIND_PTR: u64 = 2;

/// Descriptor word of one record argument.
pub fn descriptor(kind: u64, bits: u32, count: u32) -> u64 {
    kind | (u64::from(bits) << 8) | (u64::from(count) << 16)
}

pub const DESC_INT: u64 = KIND_INT;
pub const DESC_FLOAT: u64 = KIND_FLOAT;
pub const DESC_PTR: u64 = KIND_PTR;

/// The per-launch output of `printf`: what every work-item printed, tagged with its group
/// and local linear ids.
pub struct PrintfBuffer {
    inner: Mutex<Inner>,
    capacity: usize,
}

struct Inner {
    used: usize,
    entries: Vec<(u64, u64, Vec<u8>)>,
}

impl PrintfBuffer {
    /// A buffer holding at most `capacity` bytes of output (`CL_DEVICE_PRINTF_BUFFER_SIZE`);
    /// a `printf` that does not fit returns -1 and prints nothing.
    pub fn new(capacity: usize) -> PrintfBuffer {
        PrintfBuffer {
            inner: Mutex::new(Inner {
                used: 0,
                entries: Vec::new(),
            }),
            capacity,
        }
    }

    fn push(&self, group: u64, item: u64, text: Vec<u8>) -> bool {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if g.used + text.len() > self.capacity {
            return false;
        }
        g.used += text.len();
        g.entries.push((group, item, text));
        true
    }

    /// All output so far, in group order, then work-item order, then program order;
    /// the buffer is left empty.
    pub fn take_output(&self) -> Vec<u8> {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut entries = std::mem::take(&mut g.entries);
        g.used = 0;
        entries.sort_by_key(|(group, item, _)| (*group, *item)); // stable
        entries.into_iter().flat_map(|(_, _, t)| t).collect()
    }
}

/// One argument of a record.
struct Arg {
    kind: u64,
    bits: u32,
    vals: Vec<u64>,
}

/// The `ferrite_printf` built-in: format the record at `rec` into the buffer at `buf`.
/// Returns 0, or -1 when there is no buffer, the record is malformed or the buffer full.
pub fn record(buf: u64, rec: u64) -> i32 {
    if buf == 0 || rec == 0 {
        return -1;
    }
    let word = |i: usize| -> u64 {
        // SAFETY: `rec` is the address of a record codegen built on the calling JIT
        // function's stack; it holds the header and every descriptor/value it announces,
        // and `i` stays inside (see the loop bounds below, checked against `count`).
        unsafe { std::ptr::read_unaligned((rec as *const u64).add(i)) }
    };
    let (fmt, group, item, nargs) = (word(0), word(1), word(2), word(3));
    let mut args = Vec::new();
    let mut at = 4usize;
    for _ in 0..nargs.min(256) {
        let d = word(at);
        let count = ((d >> 16) & 0xff) as usize;
        let vals = (0..count).map(|k| word(at + 1 + k)).collect();
        args.push(Arg {
            kind: d & 0xff,
            bits: ((d >> 8) & 0xff) as u32,
            vals,
        });
        at += 1 + count;
    }
    // SAFETY: `fmt` is the address of the format string, a NUL-terminated `OpConstant`
    // array in the program's constant memory, which lives as long as the kernel.
    let fmt = unsafe { CStr::from_ptr(fmt as *const c_char) };
    let Some(text) = format(fmt.to_bytes(), &args) else {
        return -1;
    };
    // SAFETY: the runtime put the launch's live `PrintfBuffer` in `GroupContext::printf`,
    // and it outlives every work-group of the launch.
    let buffer = unsafe { &*(buf as *const PrintfBuffer) };
    if buffer.push(group, item, text) {
        0
    } else {
        -1
    }
}

/// One parsed conversion specification.
struct Spec {
    flags: String,
    width: String,
    precision: String,
    vector: usize,
    length: &'static str,
    conv: u8,
}

fn parse_spec(f: &[u8], mut i: usize) -> Option<(Spec, usize)> {
    let mut s = Spec {
        flags: String::new(),
        width: String::new(),
        precision: String::new(),
        vector: 0,
        length: "",
        conv: 0,
    };
    while let Some(&c) = f.get(i) {
        if b"-+ #0".contains(&c) {
            s.flags.push(c as char);
            i += 1;
        } else {
            break;
        }
    }
    while let Some(&c) = f.get(i).filter(|c| c.is_ascii_digit()) {
        s.width.push(c as char);
        i += 1;
    }
    if f.get(i) == Some(&b'.') {
        s.precision.push('.');
        i += 1;
        while let Some(&c) = f.get(i).filter(|c| c.is_ascii_digit()) {
            s.precision.push(c as char);
            i += 1;
        }
    }
    if f.get(i) == Some(&b'v') {
        i += 1;
        let mut n = String::new();
        while let Some(&c) = f.get(i).filter(|c| c.is_ascii_digit()) {
            n.push(c as char);
            i += 1;
        }
        s.vector = n.parse().ok()?;
        if !matches!(s.vector, 2 | 3 | 4 | 8 | 16) {
            return None;
        }
    }
    let rest = &f[i.min(f.len())..];
    s.length = if rest.starts_with(b"hh") {
        "hh"
    } else if rest.starts_with(b"hl") {
        "hl"
    } else if rest.starts_with(b"ll") {
        "ll"
    } else if rest.starts_with(b"h") {
        "h"
    } else if rest.starts_with(b"l") {
        "l"
    } else {
        ""
    };
    i += s.length.len();
    s.conv = *f.get(i)?;
    if !b"diouxXfFeEgGaAcsp".contains(&s.conv) {
        return None;
    }
    // `hl` is for vectors only.
    if s.length == "hl" && s.vector == 0 {
        return None;
    }
    Some((s, i + 1))
}

/// Format `f` with `args`; `None` for a malformed format or mismatched arguments.
fn format(f: &[u8], args: &[Arg]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut next = args.iter();
    let mut i = 0;
    while i < f.len() {
        if f[i] != b'%' {
            out.push(f[i]);
            i += 1;
            continue;
        }
        if f.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        let (spec, end) = parse_spec(f, i + 1)?;
        i = end;
        let arg = next.next()?;
        if spec.vector != 0 {
            if arg.vals.len() != spec.vector || matches!(spec.conv, b'c' | b's' | b'p') {
                return None;
            }
            for (k, v) in arg.vals.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                one(&spec, arg, *v, &mut out)?;
            }
        } else {
            one(&spec, arg, *arg.vals.first()?, &mut out)?;
        }
    }
    Some(out)
}

/// Format one scalar `v` of `arg` per `spec`.
fn one(spec: &Spec, arg: &Arg, v: u64, out: &mut Vec<u8>) -> Option<()> {
    let base = format!("%{}{}{}", spec.flags, spec.width, spec.precision);
    match spec.conv {
        b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => {
            let bits = if arg.kind == KIND_INT { arg.bits } else { 64 };
            // The argument's own width first, then the length modifier's.
            let sx = |v: u64, w: u32| -> i64 {
                if w >= 64 {
                    v as i64
                } else {
                    ((v << (64 - w)) as i64) >> (64 - w)
                }
            };
            let mask = |v: u64, w: u32| -> u64 {
                if w >= 64 {
                    v
                } else {
                    v & ((1u64 << w) - 1)
                }
            };
            let len_bits = match spec.length {
                "hh" => 8,
                "h" => 16,
                "l" | "ll" => 64,
                _ => 32,
            };
            let w = len_bits.min(bits.max(1));
            let value = if matches!(spec.conv, b'd' | b'i') {
                sx(mask(v, bits), w)
            } else {
                mask(v, w) as i64
            };
            c_format(
                &format!("{base}ll{}", spec.conv as char),
                CArg::Int(value),
                out,
            )
        }
        b'c' => c_format(&format!("{base}c"), CArg::Int32(v as u8 as c_int), out),
        b's' => {
            if arg.kind != KIND_PTR || v == 0 {
                return None;
            }
            c_format(&format!("{base}s"), CArg::Str(v), out)
        }
        b'p' => c_format(&format!("{base}p"), CArg::Ptr(v), out),
        _ => {
            let x = match (arg.kind, arg.bits) {
                (KIND_FLOAT, 32) => f64::from(f32::from_bits(v as u32)),
                (KIND_FLOAT, _) => f64::from_bits(v),
                _ => return None,
            };
            c_format(&format!("{base}{}", spec.conv as char), CArg::F64(x), out)
        }
    }
}

enum CArg {
    Int(i64),
    Int32(c_int),
    F64(f64),
    Str(u64),
    Ptr(u64),
}

/// `snprintf` one conversion (the spec was built by [`one`] from parsed, validated parts
/// and always matches the argument's C type).
fn c_format(spec: &str, arg: CArg, out: &mut Vec<u8>) -> Option<()> {
    let mut cspec = spec.as_bytes().to_vec();
    cspec.push(0);
    let call = |buf: *mut c_char, n: usize| -> c_int {
        let f = cspec.as_ptr().cast::<c_char>();
        // SAFETY: `f` is a NUL-terminated conversion specification whose conversion
        // matches the argument passed (`lld`/`llx`… with a `long long`, `c` with an `int`,
        // floating conversions with a `double`, `s` with the address of a NUL-terminated
        // string in the program's memory (codegen passes only pointers as `%s`
        // arguments), `p` with a pointer); `buf` has room for `n` bytes (or is null with
        // `n` = 0).
        unsafe {
            match arg {
                CArg::Int(v) => snprintf(buf, n, f, v as std::ffi::c_longlong),
                CArg::Int32(v) => snprintf(buf, n, f, v),
                CArg::F64(v) => snprintf(buf, n, f, v),
                CArg::Str(v) => snprintf(buf, n, f, v as *const c_char),
                CArg::Ptr(v) => snprintf(buf, n, f, v as *const std::ffi::c_void),
            }
        }
    };
    let need = call(std::ptr::null_mut(), 0);
    let need = usize::try_from(need).ok()?;
    let mut buf = vec![0u8; need + 1];
    call(buf.as_mut_ptr().cast(), buf.len());
    buf.truncate(need);
    out.extend_from_slice(&buf);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(bits: u32, v: u64) -> Arg {
        Arg {
            kind: KIND_INT,
            bits,
            vals: vec![v],
        }
    }

    #[test]
    fn formats_like_c() {
        let f = |fmt: &str, args: &[Arg]| {
            String::from_utf8(format(fmt.as_bytes(), args).unwrap()).unwrap()
        };
        assert_eq!(
            f(
                "%d|%5d|%-4d|%+d",
                &[
                    int(32, (-3i32) as u32 as u64),
                    int(32, 42),
                    int(32, 7),
                    int(32, 1)
                ]
            ),
            "-3|   42|7   |+1"
        );
        assert_eq!(
            f(
                "%x %X %o %u",
                &[
                    int(32, 255),
                    int(32, 255),
                    int(32, 8),
                    int(32, u64::from(u32::MAX))
                ]
            ),
            "ff FF 10 4294967295"
        );
        assert_eq!(
            f("%ld %lu", &[int(64, u64::MAX), int(64, u64::MAX)]),
            "-1 18446744073709551615"
        );
        assert_eq!(
            f("%hhd %hx", &[int(32, 0x1ff), int(32, 0x12345)]),
            "-1 2345"
        );
        let fl = |x: f32| Arg {
            kind: KIND_FLOAT,
            bits: 32,
            vals: vec![u64::from(x.to_bits())],
        };
        let db = |x: f64| Arg {
            kind: KIND_FLOAT,
            bits: 64,
            vals: vec![x.to_bits()],
        };
        assert_eq!(
            f(
                "%f %.2e %g %a",
                &[db(1.5), db(12345.678), db(0.0001), db(1.0)]
            ),
            "1.500000 1.23e+04 0.0001 0x1p+0"
        );
        assert_eq!(f("%8.3f%%", &[fl(1.23456)]), "   1.235%");
        let v4 = Arg {
            kind: KIND_FLOAT,
            bits: 32,
            vals: [1.0f32, 2.0, 3.5, -4.0]
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect(),
        };
        assert_eq!(f("%v4hlf", &[v4]), "1.000000,2.000000,3.500000,-4.000000");
        let v2 = Arg {
            kind: KIND_INT,
            bits: 8,
            vals: vec![0xff, 2],
        };
        assert_eq!(f("%v2hhd", &[v2]), "-1,2");
        assert_eq!(f("%c%c", &[int(32, 104), int(32, 105)]), "hi");
        assert!(format(b"%d", &[]).is_none());
        assert!(format(b"%hld", &[int(32, 1)]).is_none());
    }

    #[test]
    fn buffer_orders_by_group_then_item() {
        let b = PrintfBuffer::new(100);
        assert!(b.push(1, 0, b"c".to_vec()));
        assert!(b.push(0, 1, b"b".to_vec()));
        assert!(b.push(0, 0, b"a1".to_vec()));
        assert!(b.push(0, 0, b"a2".to_vec()));
        assert_eq!(b.take_output(), b"a1a2bc");
        assert!(!b.push(0, 0, vec![0; 101]));
    }
}
