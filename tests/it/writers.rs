//! The writer matrix: archives written by the archivers people use, built here
//! from a tree of files, each read by the tool, by Python's tarfile and by GNU tar
//! (`docs/method.md`, "Reading the tar exactly as GNU tar and Python's tarfile read
//! it"). Where the two oracles agree the tool must read the same files, bytes and
//! counts; where they differ it must refuse, and the row says how they differ.
//!
//! A writer that is not installed fails the test under `CI=true` and is skipped
//! with a `skipped:` line on stderr otherwise.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::archive_rules::{gnu, ours, python_batch, Summary, View};

/// Returns true when `tool` runs; otherwise fails under `CI=true`, else announces
/// the skip.
fn has(tool: &str, what: &str) -> bool {
    let runs = Command::new(tool)
        .arg("--help")
        .output()
        .map(|o| o.status.success() || !o.stdout.is_empty() || !o.stderr.is_empty())
        .unwrap_or(false);
    if !runs {
        crate::common::skip(&format!("'{tool}' is not installed: {what} is not checked"));
    }
    runs
}

/// How long the names of the tree may be, for a writer that cannot write longer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Names {
    /// Names and link targets over 100 and 255 bytes.
    Long,
    /// ustar: a name of at most 100 bytes after a prefix of at most 155.
    Ustar,
    /// v7: names of at most 99 bytes.
    V7,
}

/// Writes the tree `t/` under `dir`: files with hints, names of exactly 99, 100
/// and 101 bytes, long names whose 100-byte cut ends in `/`, a symbolic link, an
/// empty folder and a sparse file.
fn tree(dir: &Path, names: Names) {
    let top = dir.join("t");
    let file = |rel: &str, data: &[u8]| {
        let path = top.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, data).unwrap();
    };
    file("a.txt", b"readOnlyHint readOnlyHint destructiveHint");
    file(
        "src/server.py",
        b"annotations = {'idempotentHint': True, 'openWorldHint': 0}",
    );
    fs::create_dir_all(top.join("empty")).unwrap();
    // Whole names (with `t/`) of 99, 100 and 101 bytes.
    for len in [99usize, 100, 101] {
        if names == Names::V7 && len > 99 {
            continue;
        }
        let rel = match names {
            // ustar splits a name only at a '/': give it one.
            Names::Ustar if len > 100 => format!("d/{}", "n".repeat(len - 4)),
            _ => "n".repeat(len - 2),
        };
        file(&rel, format!("readOnlyHint {len}").as_bytes());
    }
    let target = match names {
        Names::Long => {
            // The header's 100-byte copy of these names ends in '/'.
            let cut = format!("{}/", "c".repeat(97));
            assert_eq!(format!("t/{cut}").len(), 100);
            file(&format!("{cut}long.txt"), b"openWorldHint");
            let deep = format!("{cut}{}/{}.txt", "e".repeat(120), "f".repeat(60));
            assert!(deep.len() > 255);
            file(&deep, b"destructiveHint destructiveHint");
            format!("../{}", "l".repeat(300))
        }
        Names::Ustar | Names::V7 => "a.txt".to_string(),
    };
    std::os::unix::fs::symlink(&target, top.join("link")).unwrap();
    if names == Names::Long {
        std::os::unix::fs::symlink("a".repeat(150), top.join("link150")).unwrap();
    }
    // A file with holes: data, a hole, data, a hole at the end.
    let sparse = top.join("sparse.bin");
    let f = fs::File::create(&sparse).unwrap();
    f.set_len(3 * 1024 * 1024).unwrap();
    drop(f);
    let write_at = |offset: u64, data: &[u8]| {
        use std::os::unix::fs::FileExt;
        let f = fs::OpenOptions::new().write(true).open(&sparse).unwrap();
        f.write_all_at(data, offset).unwrap();
    };
    write_at(0, b"readOnlyHint at the start ");
    write_at(1024 * 1024 + 17, b"idempotentHint in the middle");
}

/// One archive of the matrix: who wrote it and its bytes.
struct Written {
    writer: String,
    bytes: Vec<u8>,
}

/// Runs a writer `command` in `dir` and returns the file it wrote, or why it failed.
fn file_written(dir: &Path, mut command: Command, out: &str) -> Result<Vec<u8>, String> {
    let done = command
        .current_dir(dir)
        .output()
        .map_err(|e| e.to_string())?;
    if !done.status.success() {
        return Err(String::from_utf8_lossy(&done.stderr).into_owned());
    }
    let bytes = fs::read(dir.join(out)).map_err(|e| e.to_string())?;
    fs::remove_file(dir.join(out)).unwrap();
    Ok(bytes)
}

fn python_writer(script: &str) -> Command {
    let mut c = Command::new("python3");
    c.args(["-c", script]);
    c
}

fn sh(script: &str) -> Command {
    let mut c = Command::new("sh");
    c.args(["-c", script]);
    c
}

/// Writes the tree with every available writer.
fn matrix() -> Vec<Written> {
    let mut all = Vec::new();
    let mut push = |writer: String, got: Result<Vec<u8>, String>| match got {
        Ok(bytes) => all.push(Written { writer, bytes }),
        Err(e) => panic!("{writer} failed to write: {e}"),
    };
    for names in [Names::Long, Names::Ustar, Names::V7] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        tree(d, names);
        let formats: &[&str] = match names {
            Names::Long => &["gnu", "oldgnu", "pax", "posix"],
            Names::Ustar => &["ustar"],
            Names::V7 => &["v7"],
        };
        if has("tar", "GNU tar as a writer") {
            // ustar and v7 hold no sparse file: GNU tar refuses --sparse for them.
            let sparse = match names {
                Names::Long => " --sparse",
                Names::Ustar | Names::V7 => "",
            };
            for format in formats {
                push(
                    format!("GNU tar --format={format}{sparse}"),
                    file_written(
                        d,
                        sh(&format!("tar --format={format}{sparse} -cf out.tar t")),
                        "out.tar",
                    ),
                );
            }
            if names == Names::Long {
                for version in ["0.0", "0.1", "1.0"] {
                    push(
                        format!("GNU tar --format=pax --sparse-version={version}"),
                        file_written(
                            d,
                            sh(&format!(
                                "tar --format=pax --sparse --sparse-version={version} -cf out.tar t"
                            )),
                            "out.tar",
                        ),
                    );
                }
                for format in ["gnu", "oldgnu"] {
                    push(
                        format!("GNU tar --format={format} --label"),
                        file_written(
                            d,
                            sh(&format!(
                                "tar --format={format} -V 'volume label' -cf out.tar t"
                            )),
                            "out.tar",
                        ),
                    );
                }
                push(
                    "GNU tar --format=pax with a comment that is no commit".to_string(),
                    file_written(
                        d,
                        sh("tar --format=pax --pax-option=comment=release-1.0 -cf out.tar t"),
                        "out.tar",
                    ),
                );
                let gz = "tar --format=gnu -cf out0.tar t";
                push(
                    "GNU tar | gzip".to_string(),
                    file_written(
                        d,
                        sh(&format!("{gz} && gzip -c out0.tar > out.tgz")),
                        "out.tgz",
                    ),
                );
                push(
                    "gzip, two members".to_string(),
                    file_written(
                        d,
                        sh(&format!(
                            "{gz} && head -c 5000 out0.tar | gzip -c > out.tgz && tail -c +5001 out0.tar | gzip -c >> out.tgz"
                        )),
                        "out.tgz",
                    ),
                );
                push(
                    "gzip, zeros after the last member".to_string(),
                    file_written(
                        d,
                        sh(&format!(
                            "{gz} && gzip -c out0.tar > out.tgz && head -c 4096 /dev/zero >> out.tgz"
                        )),
                        "out.tgz",
                    ),
                );
                if has("pigz", "pigz as a writer") {
                    push(
                        "pigz".to_string(),
                        file_written(
                            d,
                            sh(&format!("{gz} && pigz -c out0.tar > out.tgz")),
                            "out.tgz",
                        ),
                    );
                }
            }
        }
        if has("bsdtar", "bsdtar (libarchive-tools) as a writer") {
            let formats: &[&str] = match names {
                Names::Long => &["gnutar", "pax", "paxr"],
                Names::Ustar => &["ustar"],
                Names::V7 => &["v7"],
            };
            for format in formats {
                push(
                    format!("bsdtar --format={format}"),
                    file_written(
                        d,
                        sh(&format!("bsdtar --format={format} -cf out.tar t")),
                        "out.tar",
                    ),
                );
            }
        }
        if has("python3", "Python's tarfile as a writer") {
            let formats: &[&str] = match names {
                Names::Long => &["GNU", "PAX"],
                Names::Ustar => &["USTAR"],
                Names::V7 => &[],
            };
            for format in formats {
                let comment = match *format {
                    "PAX" => ", pax_headers={'comment': 'built by hand'}",
                    _ => "",
                };
                let script = format!(
                    "import tarfile\nwith tarfile.open('out.tar', 'w', format=tarfile.{format}_FORMAT{comment}) as t:\n    t.add('t')\n"
                );
                push(
                    format!("Python tarfile {format}"),
                    file_written(d, python_writer(&script), "out.tar"),
                );
            }
        }
        if names == Names::Long {
            if has("busybox", "busybox tar as a writer") {
                push(
                    "busybox tar".to_string(),
                    file_written(d, sh("busybox tar -cf out.tar t"), "out.tar"),
                );
            }
            push("tar-rs".to_string(), Ok(tar_rs(d)));
        }
    }
    all
}

/// Writes the tree with tar-rs (GNU long names, as its builder does).
fn tar_rs(dir: &Path) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    builder.follow_symlinks(false);
    builder.append_dir_all("t", dir.join("t")).unwrap();
    builder.into_inner().unwrap()
}

/// Returns how two views of one archive differ, for a row.
fn differ(py: &View, gnu: &View) -> String {
    match (py, gnu) {
        (Err(p), _) => format!("Python fails: {}", p.trim()),
        (_, Err(g)) => format!("GNU tar fails: {}", g.trim()),
        (Ok((p, _)), Ok((g, _))) => format!(
            "Python reads {} files, {} bytes, {:?}; GNU tar {} files, {} bytes, {:?}",
            p.files, p.bytes, p.counts, g.files, g.bytes, g.counts
        ),
    }
}

#[test]
fn archives_of_common_writers_read_as_python_and_gnu_tar_read_them() {
    let written = matrix();
    assert!(!written.is_empty());
    let bytes: Vec<Vec<u8>> = written.iter().map(|w| w.bytes.clone()).collect();
    let pythons = python_batch(&bytes);
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (w, py) in written.iter().zip(pythons) {
        let (got, oracle_gnu) = (ours(&w.bytes), gnu(&w.bytes));
        let strip = |v: &View| v.as_ref().map(|(s, _)| s.clone()).ok();
        let agreed: Option<Summary> = match (strip(&py), strip(&oracle_gnu)) {
            (Some(p), Some(g)) if p == g => Some(p),
            _ => None,
        };
        let row = match (&agreed, &got) {
            (Some(want), Ok((summary, _))) if summary == want => format!(
                "{}: read alike: {} files, {} bytes, {:?}",
                w.writer, want.files, want.bytes, want.counts
            ),
            (Some(want), Ok((summary, _))) => {
                failures.push(w.writer.clone());
                format!(
                    "{}: WRONG: we read {summary:?}, both oracles {want:?}",
                    w.writer
                )
            }
            (Some(want), Err(e)) => {
                failures.push(w.writer.clone());
                format!(
                    "{}: REFUSED although both oracles read {want:?}: {e}",
                    w.writer
                )
            }
            (None, Err(e)) => format!(
                "{}: refused, the readers differ ({}): {e}",
                w.writer,
                differ(&py, &oracle_gnu)
            ),
            (None, Ok(_)) => {
                failures.push(w.writer.clone());
                format!(
                    "{}: READ although the readers differ ({})",
                    w.writer,
                    differ(&py, &oracle_gnu)
                )
            }
        };
        rows.push(row);
    }
    let table = rows.join("\n");
    eprintln!("{table}");
    assert!(failures.is_empty(), "{failures:?}\n{table}");
    // The sparse file's bytes are its expanded size, as both oracles read it.
    let gnu_sparse = written
        .iter()
        .find(|w| w.writer == "GNU tar --format=gnu --sparse")
        .map(|w| ours(&w.bytes).unwrap().0);
    if let Some(summary) = gnu_sparse {
        assert!(summary.bytes > 3 * 1024 * 1024, "{summary:?}");
    }
}

/// Reads each zip with Python's zipfile: every member that is not a directory,
/// with `bytes.lower().count` of every term; one JSON line per archive.
const PYTHON_ZIP: &str = r#"
import json, sys, zipfile
terms = [t.lower().encode() for t in sys.argv[1].split(",")]
for path in sys.argv[2:]:
    try:
        files = []
        with zipfile.ZipFile(path) as z:
            for i in z.infolist():
                if not i.is_dir():
                    data = z.read(i)
                    low = data.lower()
                    files.append([i.filename.encode("utf-8", "surrogateescape").hex(), len(data), [low.count(t) for t in terms]])
        print(json.dumps({"ok": True, "files": files}))
    except Exception as e:
        print(json.dumps({"ok": False, "error": ascii(e)}))
"#;

/// Python's zipfile view of one zip: (files, bytes, counts), or its error.
type ZipView = Result<(u64, u64, Vec<u64>), String>;

/// Returns Python's zipfile view of each zip.
fn python_zip(archives: &[Vec<u8>]) -> Vec<ZipView> {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<_> = archives
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            let path = dir.path().join(format!("{i}.zip"));
            fs::write(&path, bytes).unwrap();
            path
        })
        .collect();
    let out = Command::new("python3")
        .arg("-c")
        .arg(PYTHON_ZIP)
        .arg(crate::common::TERMS.join(","))
        .args(&paths)
        .output()
        .expect("python3 is needed as an oracle");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["ok"] != true {
                return Err(v["error"].to_string());
            }
            let mut total = (0u64, 0u64, vec![0u64; crate::common::TERMS.len()]);
            for f in v["files"].as_array().unwrap() {
                total.0 += 1;
                total.1 += f[1].as_u64().unwrap();
                for (t, n) in total.2.iter_mut().zip(f[2].as_array().unwrap()) {
                    *t += n.as_u64().unwrap();
                }
            }
            Ok(total)
        })
        .collect()
}

/// Writes the tree as zips: Python's zipfile stored, deflated and bzip2 (a
/// wheel is such a deflated zip), and Info-ZIP's `zip`.
fn zips(dir: &Path) -> Vec<Written> {
    let mut all = Vec::new();
    if has("python3", "Python's zipfile as a writer") {
        for method in ["ZIP_STORED", "ZIP_DEFLATED", "ZIP_BZIP2"] {
            let script = format!(
                "import os, zipfile\nwith zipfile.ZipFile('out.zip', 'w', zipfile.{method}) as z:\n    for root, dirs, files in os.walk('t'):\n        z.write(root)\n        for f in files:\n            p = os.path.join(root, f)\n            if not os.path.islink(p):\n                z.write(p)\n"
            );
            let bytes = file_written(dir, python_writer(&script), "out.zip").unwrap();
            all.push(Written {
                writer: format!("Python zipfile {method}"),
                bytes,
            });
        }
    }
    if has("zip", "Info-ZIP zip as a writer") {
        let bytes = file_written(dir, sh("zip -q -r -y out.zip t"), "out.zip").unwrap();
        all.push(Written {
            writer: "Info-ZIP zip -r".to_string(),
            bytes,
        });
    }
    all
}

#[test]
fn zips_read_as_python_zipfile_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path(), Names::Long);
    let written = zips(dir.path());
    let bytes: Vec<Vec<u8>> = written.iter().map(|w| w.bytes.clone()).collect();
    for (w, py) in written.iter().zip(python_zip(&bytes)) {
        let want = py.unwrap_or_else(|e| panic!("{}: Python cannot read it: {e}", w.writer));
        let (got, commit) = ours(&w.bytes).unwrap_or_else(|e| panic!("{}: {e}", w.writer));
        assert_eq!((got.files, got.bytes, got.counts), want, "{}", w.writer);
        assert_eq!(commit, None);
    }
    // Where the local header names a file otherwise than the central directory,
    // a reader of the local headers sees another file: refused (Python refuses
    // it too).
    if let Some(w) = written.iter().find(|w| w.writer.contains("DEFLATED")) {
        let mut bad = w.bytes.clone();
        let at = memchr::memmem::find(&bad, b"t/a.txt").unwrap();
        bad[at + 2] = b'b';
        let err = ours(&bad).unwrap_err();
        assert!(err.contains("local header names it 't/b.txt'"), "{err}");
        assert!(python_zip(&[bad])[0].is_err());
    }
}

#[test]
fn compressed_tars_read_as_gnu_tar_reads_them() {
    if !has("tar", "GNU tar as a writer") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tree(d, Names::Long);
    let plain = file_written(d, sh("tar --format=gnu --sparse -cf out.tar t"), "out.tar").unwrap();
    let want = gnu(&plain).map(|(s, _)| s).unwrap();
    assert_eq!(ours(&plain).unwrap().0, want);
    for (tool, flags) in [
        ("xz", "-c"),
        ("xz", "-c -9e"),
        ("bzip2", "-c"),
        ("zstd", "-q -c"),
        ("zstd", "-q -c --long=27"),
    ] {
        if !has(tool, &format!("{tool} as a writer")) {
            continue;
        }
        fs::write(d.join("in.tar"), &plain).unwrap();
        let packed =
            file_written(d, sh(&format!("{tool} {flags} in.tar > out.z")), "out.z").unwrap();
        let gnu_view = gnu(&packed).map(|(s, _)| s);
        assert_eq!(
            gnu_view.as_ref(),
            Ok(&want),
            "GNU tar reading {tool} {flags}"
        );
        let (got, _) = ours(&packed).unwrap_or_else(|e| panic!("{tool} {flags}: {e}"));
        assert_eq!(got, want, "{tool} {flags}");
        // Two streams (frames) one after another, as the tools themselves read them.
        let twice = [packed.clone(), packed.clone()].concat();
        assert!(
            ours(&twice).is_err(),
            "{tool}: a second tar after the first's end"
        );
    }
}

#[test]
fn scan_reads_a_wheel_and_names_a_format_it_does_not_read() {
    if !has("python3", "Python's zipfile as a writer") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A wheel: a deflated zip with no top folder, named by its content alone.
    let script = "import zipfile\nwith zipfile.ZipFile('pkg-1.0-py3-none-any.whl', 'w', zipfile.ZIP_DEFLATED) as z:\n    z.writestr('pkg/server.py', 'readOnlyHint=True; readOnlyHint=False')\n    z.writestr('pkg/tools/', '')\n    z.writestr('pkg-1.0.dist-info/METADATA', 'Name: pkg')\n";
    let out = python_writer(script).current_dir(d).output().unwrap();
    assert!(out.status.success());
    let wheel = d.join("pkg-1.0-py3-none-any.whl");
    let listed = python_zip(&[fs::read(&wheel).unwrap()]).remove(0).unwrap();
    let got = crate::common::run(d, &["scan", "--json", wheel.to_str().unwrap()]);
    assert_eq!(got.status.code(), Some(0), "{}", crate::common::show(&got));
    let rows: serde_json::Value = serde_json::from_slice(&got.stdout).unwrap();
    assert_eq!(rows[0]["files_walked"], listed.0);
    assert_eq!(rows[0]["bytes_read"], listed.1);
    assert_eq!(rows[0]["counts"]["readOnlyHint"], listed.2[0]);
    assert_eq!(listed.2[0], 2);
    // A 7-Zip archive is recognised and not read: an error naming it.
    fs::write(d.join("x.bin"), b"7z\xbc\xaf\x27\x1c\x00\x04readOnlyHint").unwrap();
    let got = crate::common::run(d, &["scan", "x.bin"]);
    assert_ne!(got.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&got.stderr).contains("a 7-Zip archive is not read"),
        "{}",
        crate::common::show(&got)
    );
    // A plain file is still a tree of one file.
    fs::write(d.join("server.py"), b"readOnlyHint").unwrap();
    let got = crate::common::run(d, &["scan", "--json", "server.py"]);
    assert_eq!(got.status.code(), Some(0), "{}", crate::common::show(&got));
    let rows: serde_json::Value = serde_json::from_slice(&got.stdout).unwrap();
    assert_eq!(rows[0]["files_walked"], 1);
}
