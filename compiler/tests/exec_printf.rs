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

/// `printf` in vector loops: one record per active lane in lane order, so the text is the
/// scalar code's (every width is held to the reference shape's output), from straight
/// code, a divergent branch and a loop whose trip count differs per work-item, with
/// vector and narrow arguments; rows of 37 leave a partial vector iteration.
#[test]
fn printf_from_vector_loops_in_lane_order() {
    let src = r#"
        kernel void k(global const float *f, global int *ret) {
            size_t i = get_global_id(0);
            float x = f[i];
            printf("%u:%.2f ", (uint)i, x);
            if (i % 3 == 1)
                printf("[%v2hhd %.1v4hlf]", (char2)((char)i, (char)-i), (float4)(x, 1.0f, -x, 2.0f));
            for (uint k = 0; k < i % 4; k++)
                ret[i] += printf("<%u.%u>", (uint)get_local_id(0), k);
            printf("\n");
        }"#;
    let Some(k) = kernel(src, "k") else { return };
    assert!(
        k.handler.lanes > 1,
        "a kernel with printf is vectorised: {}",
        k.handler.note
    );
    let (n, local) = (74usize, 37usize);
    let mut f: Vec<f32> = (0..n).map(|i| i as f32 * 0.75 - 20.0).collect();
    let mut ret = vec![0i32; n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut f).buf(1, &mut ret);
    let out = run1_printf(&k, &args, n as u64, local as u64);
    let mut want = String::new();
    for (i, x) in f.iter().enumerate() {
        want += &format!("{i}:{x:.2} ");
        if i % 3 == 1 {
            let c = i as i8;
            want += &format!("[{},{} {:.1},1.0,{:.1},2.0]", c, c.wrapping_neg(), x, -x);
        }
        for k in 0..i % 4 {
            want += &format!("<{}.{k}>", i % local);
        }
        want += "\n";
    }
    assert_eq!(out, want);
    assert!(ret.iter().all(|&r| r == 0), "printf returns 0: {ret:?}");
}
