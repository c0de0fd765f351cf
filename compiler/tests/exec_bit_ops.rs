//! `cl_khr_extended_bit_ops` (`SPV_KHR_bit_instructions`): `bitfield_insert`,
//! `bitfield_extract_signed/unsigned` and `bit_reverse` on 8-, 16-, 32- and 64-bit
//! scalars and on vectors, for every offset/count pair, against a host reference.

#[path = "common/harness.rs"]
mod harness;

use harness::{cl_to_spirv_with, run1, Args};

const SRC: &str = r#"
kernel void k(global const ulong *a, global const ulong *b, global ulong *out) {
    size_t i = get_global_id(0);
    uint off = (uint)(i / 65), cnt = (uint)(i % 65);
    ulong x = a[i], y = b[i];
    global ulong *o = out + 12 * i;
    // 64 bits: every field inside the value.
    if (off + cnt <= 64) {
        o[0] = bitfield_insert(x, y, off, cnt);
        o[1] = bitfield_extract_unsigned(x, off, cnt);
        o[2] = (ulong)bitfield_extract_signed((long)x, off, cnt);
    }
    // 32 bits, as a vector of two.
    if (off + cnt <= 32) {
        uint2 v = (uint2)((uint)x, (uint)(x >> 32)), w = (uint2)((uint)y, (uint)(y >> 32));
        uint2 r = bitfield_insert(v, w, off, cnt);
        int2 s = bitfield_extract_signed(as_int2(v), off, cnt);
        o[3] = as_ulong(r);
        o[4] = as_ulong(s);
        o[5] = as_ulong(bitfield_extract_unsigned(v, off, cnt));
    }
    // 8 and 16 bits.
    if (off + cnt <= 8) {
        o[6] = (uchar)bitfield_insert((uchar)x, (uchar)y, off, cnt);
        o[7] = (uchar)bitfield_extract_signed((char)x, off, cnt);
    }
    if (off + cnt <= 16) {
        o[8] = (ushort)bitfield_extract_unsigned((ushort)x, off, cnt);
        o[9] = (ushort)bitfield_extract_signed((short)x, off, cnt);
    }
    o[10] = bit_reverse(x);
    o[11] = as_ulong(bit_reverse(as_uchar8(x)));
}
"#;

fn low(count: u32, width: u32) -> u64 {
    if count == 0 {
        0
    } else {
        u64::MAX >> (64 - count) & (u64::MAX >> (64 - width))
    }
}

fn shl(x: u64, by: u32) -> u64 {
    x.checked_shl(by).unwrap_or(0)
}

fn insert(base: u64, ins: u64, off: u32, cnt: u32, width: u32) -> u64 {
    let mask = shl(low(cnt, width), off);
    (base & !mask | shl(ins, off) & mask) & (u64::MAX >> (64 - width))
}

fn uextract(x: u64, off: u32, cnt: u32, width: u32) -> u64 {
    (x & (u64::MAX >> (64 - width)))
        .checked_shr(off)
        .unwrap_or(0)
        & low(cnt, width)
}

/// Sign-extended to 64 bits, then cut to `width` (how the kernel stores it).
fn sextract(x: u64, off: u32, cnt: u32, width: u32) -> u64 {
    if cnt == 0 {
        return 0;
    }
    let f = uextract(x, off, cnt, width);
    let s = ((f << (64 - cnt)) as i64 >> (64 - cnt)) as u64;
    s & (u64::MAX >> (64 - width))
}

#[test]
fn extended_bit_ops_match_the_host() {
    // clang's own -O2 emits `freeze` here, which llvm-spirv-15 rejects (the runtime runs
    // opt-15 without instcombine instead; see runtime/src/program/clc.rs): -O0 keeps
    // every built-in call visible as its instruction.
    let Some(spv) = cl_to_spirv_with(
        SRC,
        "-O0",
        &["-Xclang", "-cl-ext=+cl_khr_extended_bit_ops"],
        ",+SPV_KHR_bit_instructions",
    ) else {
        return;
    };
    let k = harness::kernel_from_spirv(&spv, "k");
    let n = 65 * 65;
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut a: Vec<u64> = (0..n).map(|_| next()).collect();
    let mut b: Vec<u64> = (0..n).map(|_| next()).collect();
    let mut out = vec![0u64; 12 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a).buf(1, &mut b).buf(2, &mut out);
    run1(&k, &args, n as u64, 65);
    for i in 0..n {
        let (off, cnt) = ((i / 65) as u32, (i % 65) as u32);
        let (x, y) = (a[i], b[i]);
        let o = &out[12 * i..12 * i + 12];
        let what = format!("x = {x:#x}, y = {y:#x}, offset {off}, count {cnt}");
        if off + cnt <= 64 {
            assert_eq!(o[0], insert(x, y, off, cnt, 64), "insert 64: {what}");
            assert_eq!(o[1], uextract(x, off, cnt, 64), "uextract 64: {what}");
            assert_eq!(o[2], sextract(x, off, cnt, 64), "sextract 64: {what}");
        }
        if off + cnt <= 32 {
            let lanes = |f: &dyn Fn(u64, u64) -> u64| {
                f(x & 0xffff_ffff, y & 0xffff_ffff) | f(x >> 32, y >> 32) << 32
            };
            assert_eq!(
                o[3],
                lanes(&|p, q| insert(p, q, off, cnt, 32)),
                "insert 32: {what}"
            );
            assert_eq!(
                o[4],
                lanes(&|p, _| sextract(p, off, cnt, 32)),
                "sextract 32: {what}"
            );
            assert_eq!(
                o[5],
                lanes(&|p, _| uextract(p, off, cnt, 32)),
                "uextract 32: {what}"
            );
        }
        if off + cnt <= 8 {
            assert_eq!(
                o[6],
                insert(x & 0xff, y & 0xff, off, cnt, 8),
                "insert 8: {what}"
            );
            assert_eq!(o[7], sextract(x & 0xff, off, cnt, 8), "sextract 8: {what}");
        }
        if off + cnt <= 16 {
            assert_eq!(
                o[8],
                uextract(x & 0xffff, off, cnt, 16),
                "uextract 16: {what}"
            );
            assert_eq!(
                o[9],
                sextract(x & 0xffff, off, cnt, 16),
                "sextract 16: {what}"
            );
        }
        assert_eq!(o[10], x.reverse_bits(), "bit_reverse: {what}");
        let bytes: Vec<u8> = x.to_le_bytes().iter().map(|b| b.reverse_bits()).collect();
        assert_eq!(
            o[11],
            u64::from_le_bytes(bytes.try_into().unwrap()),
            "bit_reverse uchar8"
        );
    }
}
