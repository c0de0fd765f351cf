//! `printf`: the text each work-item prints, collected per launch in group, work-item and
//! program order, compared exactly.

#[path = "common/harness.rs"]
mod harness;

use harness::{kernel, run1_printf, Args};

#[test]
fn printf_formats_scalars_vectors_strings_in_order() {
    let src = r#"
        kernel void k(global const float *f, int n) {
            size_t i = get_global_id(0);
            if (i >= n) return;
            float4 v = (float4)(f[i], 2.5f, -1.0f, 0.125f);
            int r = printf("item %d/%u: %5.2f %e %g|%-4x|%#o|%c%s %%\n", (int)i - 1, (uint)i,
                           f[i], 12345.678f, 0.0001f, (uint)(255 + i), 8u, 'A' + (int)i, "str");
            printf("%.1v4hlf %v2hhd %v2hld %lu %ld %hx %a\n", v, (char2)(-1, 2),
                   (int2)((int)i, -3), (ulong)0xffffffffffffffff, (long)-5, 0x12345,
                   1.0f);
            printf("ret=%d\n", r);
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    let mut f: Vec<f32> = (0..6).map(|i| i as f32 * 1.5 - 2.0).collect();
    let mut args = Args::new(&k.info);
    args.buf(0, &mut f).val(1, 5i32);
    let out = run1_printf(&k, &args, 6, 2);
    let mut want = String::new();
    for (i, fi) in f.iter().take(5).enumerate() {
        want += &format!(
            "item {}/{}: {:5.2} 1.234568e+04 0.0001|{:<4x}|010|{}str %\n",
            i as i32 - 1,
            i,
            fi,
            255 + i,
            (b'A' + i as u8) as char
        );
        want += &format!(
            "{:.1},2.5,-1.0,0.1 -1,2 {},-3 18446744073709551615 -5 2345 0x1p+0\n",
            fi, i
        );
        want += "ret=0\n";
    }
    assert_eq!(out, want);
}
