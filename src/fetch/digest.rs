//! A package registry's digest of an artifact, and checking bytes against it.
//!
//! npm gives each version's tarball a Subresource Integrity string
//! (`dist.integrity`, `sha512-BASE64`; older versions only `dist.shasum`, SHA-1 in
//! hex), and a PyPI index gives each file's `sha256` in hex. A digest is kept in the
//! form the registry wrote it, so that a table carries the registry's own text, and
//! compared as bytes. It knows nothing of where the digest came from.

use std::fmt;

use base64::Engine;

/// Holds one expected digest: the algorithm, the bytes, and the text it was read
/// from (what a table and an error show).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digest {
    algorithm: Algorithm,
    bytes: Vec<u8>,
    text: String,
}

/// The hash functions registries name, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Algorithm {
    Sha1,
    Sha256,
    Sha512,
}

impl Algorithm {
    fn name(self) -> &'static str {
        match self {
            Algorithm::Sha1 => "sha1",
            Algorithm::Sha256 => "sha256",
            Algorithm::Sha512 => "sha512",
        }
    }

    fn len(self) -> usize {
        match self {
            Algorithm::Sha1 => 20,
            Algorithm::Sha256 => 32,
            Algorithm::Sha512 => 64,
        }
    }

    fn of(name: &str) -> Option<Algorithm> {
        [Algorithm::Sha1, Algorithm::Sha256, Algorithm::Sha512]
            .into_iter()
            .find(|a| a.name() == name)
    }
}

impl Digest {
    /// Parses `text` in either form a registry writes: `ALGO-BASE64` (Subresource
    /// Integrity; of several space-separated, the strongest algorithm this reads,
    /// options after `?` ignored) or `ALGO:HEX`. Returns `None` for anything else,
    /// or a hash of the wrong length.
    pub fn parse(text: &str) -> Option<Digest> {
        let text = text.trim();
        if let Some((name, hex)) = text.split_once(':') {
            let algorithm = Algorithm::of(&name.to_ascii_lowercase())?;
            let bytes = from_hex(hex)?;
            return (bytes.len() == algorithm.len()).then(|| Digest {
                algorithm,
                bytes,
                text: format!("{}:{}", algorithm.name(), hex.to_ascii_lowercase()),
            });
        }
        text.split_ascii_whitespace()
            .filter_map(|one| {
                let (name, rest) = one.split_once('-')?;
                let algorithm = Algorithm::of(name)?;
                let b64 = rest.split('?').next().unwrap_or_default();
                let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
                (bytes.len() == algorithm.len()).then(|| Digest {
                    algorithm,
                    bytes,
                    text: format!("{name}-{b64}"),
                })
            })
            .max_by_key(|d| d.algorithm)
    }

    /// Returns the digest of a SHA-1 given as hex (npm's `dist.shasum`), written
    /// `sha1:HEX`.
    pub fn sha1_hex(hex: &str) -> Option<Digest> {
        Digest::parse(&format!("sha1:{hex}"))
    }

    /// Returns a hasher of this digest's algorithm.
    pub fn hasher(&self) -> Hasher {
        match self.algorithm {
            Algorithm::Sha1 => Hasher::Sha1(Box::default()),
            Algorithm::Sha256 => Hasher::Sha256(sha2::Sha256::default()),
            Algorithm::Sha512 => Hasher::Sha512(sha2::Sha512::default()),
        }
    }

    /// Returns an error naming both digests when `hasher`'s bytes are not the ones
    /// this digest describes.
    pub fn check(&self, hasher: Hasher) -> Result<(), String> {
        let got = hasher.finish();
        match got == self.bytes {
            true => Ok(()),
            false => Err(format!(
                "the artifact's digest is '{}', not the registry's '{}'",
                self.written_like(&got),
                self.text
            )),
        }
    }

    /// Returns `bytes` written in this digest's form.
    fn written_like(&self, bytes: &[u8]) -> String {
        match self.text.contains(':') {
            true => format!("{}:{}", self.algorithm.name(), to_hex(bytes)),
            false => format!(
                "{}-{}",
                self.algorithm.name(),
                base64::engine::general_purpose::STANDARD.encode(bytes)
            ),
        }
    }

    /// Returns the digest as the registry wrote it (one SRI member, or `ALGO:HEX`).
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Hashes bytes with one of the algorithms a [`Digest`] names.
#[derive(Clone)]
pub enum Hasher {
    Sha1(Box<sha1_checked::Sha1>),
    Sha256(sha2::Sha256),
    Sha512(sha2::Sha512),
}

impl Hasher {
    /// Adds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        use sha2::Digest as _;
        match self {
            Hasher::Sha1(h) => h.update(bytes),
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::Sha512(h) => h.update(bytes),
        }
    }

    fn finish(self) -> Vec<u8> {
        use sha2::Digest as _;
        match self {
            Hasher::Sha1(h) => h.finalize().to_vec(),
            Hasher::Sha256(h) => h.finalize().to_vec(),
            Hasher::Sha512(h) => h.finalize().to_vec(),
        }
    }
}

fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 || !hex.is_ascii() {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect()
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_checks_the_bytes_it_names() {
        // `printf abc | sha512sum | xxd -r -p | base64`, `sha256sum`, `sha1sum`.
        let sri = "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw==";
        let hex = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let sha1 = "a9993e364706816aba3e25717850c26c9cd0d89d";
        for digest in [
            Digest::parse(sri).unwrap(),
            Digest::parse(hex).unwrap(),
            Digest::sha1_hex(sha1).unwrap(),
        ] {
            let mut good = digest.hasher();
            good.update(b"ab");
            good.update(b"c");
            assert_eq!(digest.check(good), Ok(()), "{digest}");
            let mut bad = digest.hasher();
            bad.update(b"abd");
            let why = digest.check(bad).unwrap_err();
            assert!(
                why.ends_with(&format!("not the registry's '{digest}'")),
                "{why}"
            );
        }
        assert_eq!(Digest::parse(sri).unwrap().as_str(), sri);
    }

    #[test]
    fn the_strongest_member_of_an_integrity_string_is_kept() {
        let both = "sha1-qZk+NkcGgWq6PiVxeFDCbJzQ2J0= sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw==?opt";
        assert!(Digest::parse(both).unwrap().as_str().starts_with("sha512-"));
        for bad in [
            "",
            "md5-AAAA",
            "sha512-AAAA",
            "sha256:abc",
            "sha256:zz",
            "sha512-!!!",
        ] {
            assert_eq!(Digest::parse(bad), None, "{bad}");
        }
    }
}
