//! Argument type names for clang's own SPIR-V target, which writes none.
//!
//! `CL_KERNEL_ARG_TYPE_NAME` (and the `const`/`restrict`/`volatile` of
//! `CL_KERNEL_ARG_TYPE_QUALIFIER`) come from clang's front end, as the `!kernel_arg_type` and
//! `!kernel_arg_type_qual` metadata of each kernel. llvm-spirv keeps them in the module as
//! `OpString "kernel_arg_type.<kernel>.<type>,<type>,"` (its
//! `--preserve-ocl-kernel-arg-type-metadata-through-string`), which the compiler reads
//! (`compiler/src/module/args.rs`); clang-22's SPIR-V target drops them (measured: a
//! kernel's type names all empty). With `-cl-kernel-arg-info` on that target the driver
//! runs the front end once more to LLVM IR text ([`ir_args`]), reads the metadata
//! ([`arg_strings`]) and adds the same strings to the module ([`add_strings`]).

/// The clang arguments of a native compile (`clang_args`, ending in `- -o <spv>`) turned
/// into the front end's run to LLVM IR text in `ll`, without LLVM's passes.
pub(super) fn ir_args(clang_args: &[String], ll: &std::path::Path) -> Vec<String> {
    let mut args: Vec<String> = clang_args.iter().filter(|a| *a != "-c").cloned().collect();
    if let Some(out) = args.last_mut() {
        *out = ll.display().to_string();
    }
    let front = ["-S", "-emit-llvm", "-Xclang", "-disable-llvm-passes"];
    args.splice(0..0, front.iter().map(|s| s.to_string()));
    args
}

/// `kernel_arg_type.<kernel>.<types>,` and `kernel_arg_type_qual.<kernel>.<qualifiers>,`
/// for every kernel (`define spir_kernel`) of the LLVM IR text `ll`.
pub(super) fn arg_strings(ll: &str) -> Vec<String> {
    let mut strings = Vec::new();
    for line in ll.lines().filter(|l| l.starts_with("define spir_kernel ")) {
        let Some(name) = kernel_name(line) else {
            continue;
        };
        for key in ["kernel_arg_type", "kernel_arg_type_qual"] {
            if let Some(values) = attached(line, key).and_then(|id| metadata_strings(ll, id)) {
                let mut s = format!("{key}.{name}.");
                for v in values {
                    s.push_str(&v);
                    s.push(',');
                }
                strings.push(s);
            }
        }
    }
    strings
}

/// The function name of a `define` line: `@k(` or `@"a name"(`.
fn kernel_name(line: &str) -> Option<String> {
    let rest = &line[line.find(" @")? + 2..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return Some(quoted[..quoted.find('"')?].to_string());
    }
    Some(rest[..rest.find('(')?].to_string())
}

/// The metadata node attached as `!<key> !<id>` on a `define` line.
fn attached<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let marker = format!("!{key} !");
    let at = line.find(&marker)? + marker.len();
    let id = &line[at..];
    Some(&id[..id.find(|c: char| !c.is_ascii_digit()).unwrap_or(id.len())])
}

/// The strings of metadata node `!<id> = !{!"a", !"b"}` (an empty node: none).
fn metadata_strings(ll: &str, id: &str) -> Option<Vec<String>> {
    let prefix = format!("!{id} = !{{");
    let body = ll.lines().find_map(|l| l.strip_prefix(&prefix))?;
    let body = body.strip_suffix('}')?;
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find("!\"") {
        let s = &rest[start + 2..];
        let end = s.find('"')?;
        out.push(unescape(&s[..end]));
        rest = &s[end + 1..];
    }
    Some(out)
}

/// LLVM's `\XX` escapes in a metadata string.
fn unescape(s: &str) -> String {
    let mut bytes = Vec::with_capacity(s.len());
    let raw = s.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        let hex = raw
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (raw[i], hex) {
            (b'\\', Some(b)) => {
                bytes.push(b);
                i += 3;
            }
            (b, _) => {
                bytes.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

const OP_STRING: u32 = 7;
/// The opcodes that come before the debug section (`OpString` and `OpName` start it):
/// capabilities, extensions, imports, the memory model, entry points, execution modes.
const BEFORE_DEBUG: [u32; 7] = [17, 10, 11, 14, 15, 16, 331];

/// `spirv` with an `OpString` of each of `strings` at the start of its debug section, on
/// new ids (the id bound grows). A module too short to have a header is returned as is
/// (the compiler reports it).
pub(super) fn add_strings(spirv: &[u8], strings: &[String]) -> Vec<u8> {
    if spirv.len() < 20 || !spirv.len().is_multiple_of(4) || strings.is_empty() {
        return spirv.to_vec();
    }
    let mut words: Vec<u32> = spirv
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || !BEFORE_DEBUG.contains(&(words[at] & 0xffff)) {
            break;
        }
        at += count;
    }
    let at = at.min(words.len());
    let mut insert = Vec::new();
    for s in strings {
        let mut bytes = s.as_bytes().to_vec();
        bytes.push(0);
        bytes.resize(bytes.len().div_ceil(4) * 4, 0);
        let count = 2 + bytes.len() / 4;
        insert.push(((count as u32) << 16) | OP_STRING);
        insert.push(words[3]);
        words[3] += 1;
        insert.extend(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
    }
    words.splice(at..at, insert);
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
