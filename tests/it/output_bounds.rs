//! `scan --files` and `scan --json --files` on an archive of many files with long
//! names stay within a memory bound whatever the number of files: the hits spill
//! to disk while counted, and both outputs stream them back (docs/archives.md,
//! "Bounded memory"). The peak resident memory of the child is read by Python's
//! `resource.getrusage(RUSAGE_CHILDREN)`.

use std::path::Path;
use std::process::Command;

use crate::common::{bin, run};

/// Files in the archive, each with an 8 KiB name and a hint: enough that holding
/// every path of the output in memory would pass the bound several times over
/// (16,000 names of 8 KiB are 125 MiB before any formatting).
const FILES: usize = 16_000;

/// The bound, in KiB: 64 MiB.
const BOUND_KIB: u64 = 64 * 1024;

/// Writes the archive with Python's tarfile (PAX long names, gzip level 1).
fn archive(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("many.tar.gz");
    let script = format!(
        "import io, tarfile, sys\n\
         with tarfile.open(sys.argv[1], 'w:gz', compresslevel=1, format=tarfile.PAX_FORMAT) as t:\n\
         \x20   for i in range({FILES}):\n\
         \x20       name = 't/%06d-' % i + 'n' * 8186\n\
         \x20       data = b'readOnlyHint'\n\
         \x20       info = tarfile.TarInfo(name)\n\
         \x20       info.size = len(data)\n\
         \x20       t.addfile(info, io.BytesIO(data))\n"
    );
    let out = Command::new("python3")
        .args(["-c", &script])
        .arg(&path)
        .output()
        .expect("python3 writes the archive");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

/// Returns the peak resident memory of `scan ARGS`, in KiB, and its exit code.
fn peak_kib(args: &[&str]) -> (u64, i32) {
    let script = "import resource, subprocess, sys\n\
                  r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n\
                  print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)\n";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(bin())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut fields = text.split_whitespace();
    let kib = fields.next().unwrap().parse().unwrap();
    let code = fields.next().unwrap().parse().unwrap();
    (kib, code)
}

#[test]
fn files_and_json_of_many_long_named_hits_stay_under_64_mib() {
    let dir = tempfile::tempdir().unwrap();
    let path = archive(dir.path());
    let path = path.to_str().unwrap();
    for args in [
        &["scan", "--files", path][..],
        &["scan", "--json", "--files", path][..],
    ] {
        let (kib, code) = peak_kib(args);
        assert_eq!(code, 0, "{args:?}");
        assert!(
            kib < BOUND_KIB,
            "{args:?} peaked at {kib} KiB, over the {BOUND_KIB} KiB bound"
        );
        eprintln!("{args:?}: peak {kib} KiB for {FILES} files");
    }
    // The output holds every file: counted by streaming it here.
    let out = run(Path::new("."), &["scan", "--json", "--files", path]);
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows[0]["files"].as_array().unwrap().len(), FILES);
    assert_eq!(rows[0]["counts"]["readOnlyHint"], FILES as u64);
}
