//! Integer dot products (`cl_khr_integer_dot_product`, `SPV_KHR_integer_dot_product`):
//! every OpenCL C form — vectors of 8-bit components with each signedness pairing, packed
//! 32-bit operands, with and without saturating accumulation — against a host reference on
//! inputs that include the extremes.

#[path = "common/harness.rs"]
mod harness;

use harness::{kernel_with, run1, Args};

const SRC: &str = r#"
kernel void k(global const uint *a, global const uint *b, global const int *acc,
              global int *out) {
    size_t i = get_global_id(0);
    uint x = a[i], y = b[i];
    int c = acc[i];
    uchar4 ux = as_uchar4(x), uy = as_uchar4(y);
    char4 sx = as_char4(x), sy = as_char4(y);
    global int *o = out + 16 * i;
    o[0] = (int)dot(ux, uy);
    o[1] = dot(sx, sy);
    o[2] = dot(ux, sy);
    o[3] = dot(sx, uy);
    o[4] = (int)dot_acc_sat(ux, uy, (uint)c);
    o[5] = dot_acc_sat(sx, sy, c);
    o[6] = dot_acc_sat(ux, sy, c);
    o[7] = dot_acc_sat(sx, uy, c);
    o[8] = (int)dot_4x8packed_uu_uint(x, y);
    o[9] = dot_4x8packed_ss_int(x, y);
    o[10] = dot_4x8packed_us_int(x, y);
    o[11] = dot_4x8packed_su_int(x, y);
    o[12] = (int)dot_acc_sat_4x8packed_uu_uint(x, y, (uint)c);
    o[13] = dot_acc_sat_4x8packed_ss_int(x, y, c);
    o[14] = dot_acc_sat_4x8packed_us_int(x, y, c);
    o[15] = dot_acc_sat_4x8packed_su_int(x, y, c);
}
"#;

fn dot(x: u32, y: u32, xs: bool, ys: bool) -> i64 {
    (0..4)
        .map(|k| {
            let (a, b) = ((x >> (8 * k)) as u8, (y >> (8 * k)) as u8);
            let a = if xs { i64::from(a as i8) } else { i64::from(a) };
            let b = if ys { i64::from(b as i8) } else { i64::from(b) };
            a * b
        })
        .sum()
}

fn expected(x: u32, y: u32, c: i32) -> [i32; 16] {
    let pairs = [(false, false), (true, true), (false, true), (true, false)];
    let mut r = [0i32; 16];
    for (j, &(xs, ys)) in pairs.iter().enumerate() {
        let d = dot(x, y, xs, ys);
        let plain = d as i32; // low 32 bits
        let sat = if j == 0 {
            (d + i64::from(c as u32)).min(i64::from(u32::MAX)) as u32 as i32
        } else {
            (d + i64::from(c)).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
        };
        r[j] = plain;
        r[4 + j] = sat;
        r[8 + j] = plain;
        r[12 + j] = sat;
    }
    r
}

#[test]
fn dot_products_match_the_host() {
    let ext = "-cl-ext=+cl_khr_integer_dot_product,\
               +__opencl_c_integer_dot_product_input_4x8bit,\
               +__opencl_c_integer_dot_product_input_4x8bit_packed";
    let Some(k) = kernel_with(SRC, "k", &["-Xclang", ext], ",+SPV_KHR_integer_dot_product") else {
        return;
    };
    let mut a = vec![
        0u32,
        u32::MAX,
        0x8080_8080,
        0x7f7f_7f7f,
        0x0102_0304,
        0xff00_80ff,
    ];
    let mut b = vec![
        0u32,
        u32::MAX,
        0x8080_8080,
        0x8080_8080,
        0xfffe_fdfc,
        0x7f01_80ff,
    ];
    let mut c = vec![0i32, i32::MAX, i32::MIN, -5, 7, i32::MAX - 3];
    let mut seed = 0x2545_f491_u32;
    for _ in 0..250 {
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        a.push(next());
        b.push(next());
        let r = next();
        // A quarter near the saturation bounds, the rest spread over the range.
        let k = (r % 50) as i32;
        c.push(match r % 8 {
            0 => i32::MAX - k,
            1 => i32::MIN + k,
            _ => (r as i32) >> (r % 24),
        });
    }
    let n = a.len();
    let mut out = vec![0i32; 16 * n];
    let mut args = Args::new(&k.info);
    args.buf(0, &mut a)
        .buf(1, &mut b)
        .buf(2, &mut c)
        .buf(3, &mut out);
    run1(&k, &args, n as u64, 1);
    for i in 0..n {
        assert_eq!(
            &out[16 * i..16 * i + 16],
            &expected(a[i], b[i], c[i]),
            "a = {:#x}, b = {:#x}, acc = {}",
            a[i],
            b[i],
            c[i]
        );
    }
}
