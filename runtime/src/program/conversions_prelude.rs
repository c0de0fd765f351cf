//! The integer conversions prelude for clang's own SPIR-V target (see
//! `clc.rs`, `integer_conversions_prelude`): macros that mend what clang-22 writes for
//! `convert_<integer>` of a source of the destination's signedness. A file of its own so
//! the compiler tests, which run clang-22 themselves, feed clang the same text.

/// The macros' text (made once per process by the caller).
pub(super) fn make() -> String {
    const INTS: [(&str, &str, bool); 8] = [
        ("char", "CHAR", true),
        ("uchar", "UCHAR", false),
        ("short", "SHRT", true),
        ("ushort", "USHRT", false),
        ("int", "INT", true),
        ("uint", "UINT", false),
        ("long", "LONG", true),
        ("ulong", "ULONG", false),
    ];
    const LANES: [&str; 16] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F",
    ];
    let mut out = String::new();
    for (n, count) in [("", 1), ("2", 2), ("3", 3), ("4", 4), ("8", 8), ("16", 16)] {
        for (d, limit, signed) in INTS {
            let w = if signed { "long" } else { "ulong" };
            // The argument is evaluated once: a vector goes through a temporary of its own
            // type (`(x) - (x)` drops an address space `__typeof__` would keep, and is not
            // evaluated there).
            let widened = if count == 1 {
                format!("(({w})(x))")
            } else {
                let lanes: Vec<String> = LANES[..count]
                    .iter()
                    .map(|l| format!("({w})(__ferrite_x.s{l})"))
                    .collect();
                format!(
                    "({{ __typeof__((x) - (x)) __ferrite_x = (x); ({w}{n})({}); }})",
                    lanes.join(", ")
                )
            };
            // clang's own built-ins, not `clamp`/`min`: a user's variable or macro of
            // that name must not change what the macro means.
            let capped = format!("__builtin_elementwise_min({widened}, ({w}{n})({limit}_MAX))");
            let clamped = if signed {
                format!("__builtin_elementwise_max({capped}, ({w}{n})({limit}_MIN))")
            } else {
                capped
            };
            for (sat, arg) in [("", &widened), ("_sat", &clamped)] {
                for r in ["", "_rte", "_rtz", "_rtp", "_rtn"] {
                    let name = format!("convert_{d}{n}{sat}{r}");
                    let same: Vec<String> = INTS
                        .iter()
                        .filter(|t| t.2 == signed)
                        .map(|t| format!("{}{n}: (convert_{d}{n})({arg})", t.0))
                        .collect();
                    out.push_str(&format!(
                        "#define {name}(x) _Generic((x), {}, default: {name}(x))\n",
                        same.join(", ")
                    ));
                }
            }
        }
    }
    out
}
