//! NAIF's Double precision Array File (DAF), the container of binary SPK and PCK kernels, and
//! the Chebyshev segments (SPK types 2 and 3, binary PCK type 2) Tumble evaluates from them.
//!
//! Layout (NAIF "DAF Required Reading"): 1024-byte records; the file record holds the
//! identification word (`DAF/SPK`, `DAF/PCK`), `ND` and `NI` (doubles and integers per summary),
//! the first summary record and the binary format (`LTL-IEEE` only: little-endian, as every
//! kernel written on x86 and ARM). A summary record starts with the next record's number, the
//! previous one's and the count of summaries; each summary is `ND` doubles then `NI` 32-bit
//! integers, the last two of which are the segment's first and last 1-based double addresses.
//! Every address, count and link is checked against the file before it is followed.

use super::SpiceError;

const RECORD: usize = 1024;

/// A DAF's bytes and its summary shape.
pub struct Daf {
    name: String,
    bytes: Vec<u8>,
    /// `"SPK"` or `"PCK"`.
    pub kind: String,
    nd: usize,
    ni: usize,
}

/// One summary: its doubles and integers.
pub struct Summary {
    /// The `ND` doubles (for SPK and PCK: the segment's first and last ET).
    pub doubles: Vec<f64>,
    /// The `NI` integers.
    pub ints: Vec<i32>,
}

impl Daf {
    /// Parses the file record of `bytes` (named `name` in errors).
    pub fn new(name: &str, bytes: Vec<u8>) -> Result<Self, SpiceError> {
        let bad = |what: &str| SpiceError::Kernel(format!("{name}: {what}"));
        if bytes.len() < RECORD {
            return Err(bad("shorter than a DAF's file record (1024 bytes)"));
        }
        let id = String::from_utf8_lossy(&bytes[0..8]).trim_end().to_string();
        let kind = match id.as_str() {
            "DAF/SPK" | "DAF/PCK" => id[4..].to_string(),
            "NAIF/DAF" => return Err(bad("an old-style DAF (NAIF/DAF): convert it with NAIF's spacit")),
            _ => return Err(bad(&format!("not a binary SPK or PCK kernel (identification '{id}')"))),
        };
        let format = String::from_utf8_lossy(&bytes[88..96]).to_string();
        if format != "LTL-IEEE" {
            return Err(bad(&format!(
                "binary format '{format}': only little-endian IEEE (LTL-IEEE) kernels are read; convert it with NAIF's bingo"
            )));
        }
        let nd = i32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        let ni = i32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes"));
        if nd != 2 || !(5..=6).contains(&ni) {
            return Err(bad(&format!("ND = {nd}, NI = {ni}: an SPK has 2 and 6, a PCK 2 and 5")));
        }
        Ok(Self { name: name.to_string(), bytes, kind, nd: nd as usize, ni: ni as usize })
    }

    fn i32_at(&self, byte: usize) -> i32 {
        i32::from_le_bytes(self.bytes[byte..byte + 4].try_into().expect("4 bytes"))
    }

    /// The double at 1-based word address `word`.
    pub fn word(&self, word: usize) -> Result<f64, SpiceError> {
        let at = word.checked_sub(1).map(|w| w * 8).filter(|b| b + 8 <= self.bytes.len());
        let at = at.ok_or_else(|| SpiceError::Kernel(format!("{}: address {word} is outside the file", self.name)))?;
        Ok(f64::from_le_bytes(self.bytes[at..at + 8].try_into().expect("8 bytes")))
    }

    /// Every summary, following the summary records' forward links (each record at most once).
    pub fn summaries(&self) -> Result<Vec<Summary>, SpiceError> {
        let records = self.bytes.len() / RECORD;
        let mut seen = vec![false; records + 1];
        let mut next = self.i32_at(76) as i64;
        let size = self.nd + self.ni.div_ceil(2);
        let mut out = Vec::new();
        while next != 0 {
            let r = usize::try_from(next).ok().filter(|&r| r >= 2 && r <= records && !seen[r]).ok_or_else(|| {
                SpiceError::Kernel(format!("{}: summary record {next} is outside the file or visited twice", self.name))
            })?;
            seen[r] = true;
            let first = (r - 1) * RECORD / 8 + 1;
            let n = self.word(first + 2)?;
            if !(0.0..=((RECORD / 8 - 3) / size) as f64).contains(&n) || n.fract() != 0.0 {
                return Err(SpiceError::Kernel(format!("{}: summary record {r} claims {n} summaries", self.name)));
            }
            for k in 0..n as usize {
                let at = first + 3 + k * size;
                let doubles = (0..self.nd).map(|i| self.word(at + i)).collect::<Result<Vec<_>, _>>()?;
                let byte = (at - 1 + self.nd) * 8;
                let ints = (0..self.ni).map(|i| self.i32_at(byte + 4 * i)).collect();
                out.push(Summary { doubles, ints });
            }
            let link = self.word(first)?;
            if !link.is_finite() || link.fract() != 0.0 || link.abs() > records as f64 {
                return Err(SpiceError::Kernel(format!("{}: summary record {r} links to record {link}", self.name)));
            }
            next = link as i64;
        }
        Ok(out)
    }
}

/// A segment of Chebyshev records with a fixed interval (SPK types 2 and 3, PCK type 2): the
/// record of an epoch is found by arithmetic, `⌊(t − INIT)/INTLEN⌋`.
#[derive(Clone, Debug)]
pub struct Chebyshev {
    init: f64,
    intlen: f64,
    /// Doubles per record, `2 + components·(degree + 1)`.
    rsize: usize,
    records: usize,
    /// Components with their own coefficients: 3 (type 2: positions or angles) or 6 (type 3).
    components: usize,
    /// The records, copied out of the file: `[MID, RADIUS, c₀…]` each.
    data: Vec<f64>,
}

/// Most coefficients per component a record may have (NAIF's own limit is degree 49).
const MAX_DEGREE: usize = 49;

impl Chebyshev {
    /// The segment at 1-based addresses `[start, end]` of `daf` with `components` components per
    /// record, checked: its directory (INIT, INTLEN, RSIZE, N) must fit the addresses.
    pub fn read(daf: &Daf, span: [f64; 2], start: i32, end: i32, components: usize) -> Result<Self, SpiceError> {
        let bad = |what: String| SpiceError::Kernel(format!("{}: segment at words {start}..{end}: {what}", daf.name));
        if start < 1 || end < start + 3 || span[0].partial_cmp(&span[1]).is_none_or(|o| o.is_gt()) {
            return Err(bad("its addresses or time span are out of order".into()));
        }
        let (start, end) = (start as usize, end as usize);
        let [init, intlen, rsize, n] = [end - 3, end - 2, end - 1, end].map(|w| daf.word(w));
        let (init, intlen, rsize, n) = (init?, intlen?, rsize?, n?);
        let whole = |x: f64| x.is_finite() && x.fract() == 0.0 && x >= 1.0;
        if !whole(rsize) || !whole(n) || intlen.is_nan() || intlen <= 0.0 || !init.is_finite() {
            return Err(bad(format!(
                "directory INIT {init}, INTLEN {intlen}, RSIZE {rsize}, N {n} is not a record layout"
            )));
        }
        let (rsize, records) = (rsize as usize, n as usize);
        let per = (rsize.saturating_sub(2)) / components;
        if rsize < 2 + components || (rsize - 2) % components != 0 || per > MAX_DEGREE + 1 {
            return Err(bad(format!(
                "RSIZE {rsize} is not 2 + {components}·(degree + 1) for a degree up to {MAX_DEGREE}"
            )));
        }
        if records.checked_mul(rsize).is_none_or(|w| start + w + 3 != end) {
            return Err(bad(format!("{records} records of {rsize} words do not fill the segment")));
        }
        let data = (start..start + records * rsize).map(|w| daf.word(w)).collect::<Result<Vec<_>, _>>()?;
        if data.iter().any(|x| !x.is_finite()) || data.chunks(rsize).any(|r| r[1] <= 0.0) {
            return Err(bad("a record holds a non-finite value or a radius that is not positive".into()));
        }
        Ok(Self { init, intlen, rsize, records, components, data })
    }

    /// The first three components and their rates at `et` (SPK type 2: position in km and its
    /// derivative km/s; PCK type 2: Euler angles in rad and their rates). For type 3 the rates
    /// are the record's own velocity components.
    pub fn eval(&self, et: f64) -> ([f64; 3], [f64; 3]) {
        let k = (((et - self.init) / self.intlen).floor().max(0.0) as usize).min(self.records - 1);
        let rec = &self.data[k * self.rsize..(k + 1) * self.rsize];
        let (mid, radius) = (rec[0], rec[1]);
        let s = (et - mid) / radius;
        let per = (self.rsize - 2) / self.components;
        let coef = |c: usize| &rec[2 + c * per..2 + (c + 1) * per];
        let mut value = [0.0; 3];
        let mut rate = [0.0; 3];
        for c in 0..3 {
            let (v, d) = clenshaw(coef(c), s);
            value[c] = v;
            rate[c] = if self.components == 6 { clenshaw(coef(c + 3), s).0 } else { d / radius };
        }
        (value, rate)
    }
}

/// `Σ cₖ Tₖ(s)` and its derivative in `s`.
fn clenshaw(c: &[f64], s: f64) -> (f64, f64) {
    // T and its derivative by the three-term recurrences.
    let (mut t0, mut t1) = (1.0, s);
    let (mut d0, mut d1) = (0.0, 1.0);
    let mut value = c[0];
    let mut rate = 0.0;
    for (k, ck) in c.iter().enumerate().skip(1) {
        if k > 1 {
            let t2 = 2.0 * s * t1 - t0;
            let d2 = 2.0 * t1 + 2.0 * s * d1 - d0;
            (t0, t1, d0, d1) = (t1, t2, d1, d2);
        }
        value += ck * t1;
        rate += ck * d1;
    }
    (value, rate)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An SPK of one type-2 segment (body 5 about 0, J2000, two records of degree 1 over
    /// [0, 20] s) in a DAF built word by word: record 1 the file record, 2 the summaries, 3 the
    /// (empty) names, 4 the data.
    pub(crate) fn spk() -> Vec<u8> {
        let mut b = vec![0u8; 4 * RECORD];
        b[0..8].copy_from_slice(b"DAF/SPK ");
        b[8..12].copy_from_slice(&2i32.to_le_bytes());
        b[12..16].copy_from_slice(&6i32.to_le_bytes());
        b[76..80].copy_from_slice(&2i32.to_le_bytes());
        b[88..96].copy_from_slice(b"LTL-IEEE");
        let put = |b: &mut Vec<u8>, word: usize, x: f64| b[(word - 1) * 8..word * 8].copy_from_slice(&x.to_le_bytes());
        let first = RECORD / 8 + 1;
        put(&mut b, first + 2, 1.0);
        put(&mut b, first + 3, 0.0);
        put(&mut b, first + 4, 20.0);
        let data = 3 * RECORD / 8 + 1;
        // Records: MID, RADIUS, x(2), y(2), z(2); then INIT, INTLEN, RSIZE, N.
        let words =
            [5.0, 5.0, 1.0, 2.0, 0.0, 1.0, 3.0, 0.0, 15.0, 5.0, 3.0, 2.0, 0.0, 1.0, 3.0, 0.0, 0.0, 10.0, 8.0, 2.0];
        for (k, w) in words.iter().enumerate() {
            put(&mut b, data + k, *w);
        }
        let ints = [5i32, 0, 1, 2, data as i32, (data + words.len() - 1) as i32];
        for (k, i) in ints.iter().enumerate() {
            let at = (first + 4) * 8 + 4 * k;
            b[at..at + 4].copy_from_slice(&i.to_le_bytes());
        }
        b
    }

    #[test]
    fn reads_a_segment_and_refuses_forged_links_and_layouts() {
        let daf = Daf::new("t.bsp", spk()).unwrap();
        let s = daf.summaries().unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].ints[..4], [5, 0, 1, 2]);
        let cheb = Chebyshev::read(&daf, [0.0, 20.0], s[0].ints[4], s[0].ints[5], 3).unwrap();
        // Second record at t = 17: x = 3 + 2 (17 − 15)/5, rate 2/5.
        let (p, v) = cheb.eval(17.0);
        assert_eq!((p[0], v[0]), (3.8, 0.4));
        let err = |b: Vec<u8>| match Daf::new("t.bsp", b).and_then(|d| d.summaries().map(|_| d)) {
            Err(e) => e.to_string(),
            Ok(d) => {
                let s = &d.summaries().unwrap()[0];
                Chebyshev::read(&d, [0.0, 20.0], s.ints[4], s.ints[5], 3)
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default()
            }
        };
        let mut cyclic = spk();
        cyclic[RECORD..RECORD + 8].copy_from_slice(&2.0f64.to_le_bytes());
        assert!(err(cyclic).contains("visited twice"));
        let mut big_endian = spk();
        big_endian[88..96].copy_from_slice(b"BIG-IEEE");
        assert!(err(big_endian).contains("bingo"));
        let mut many = spk();
        many[RECORD + 16..RECORD + 24].copy_from_slice(&1e9f64.to_le_bytes());
        assert!(err(many).contains("claims"));
        let mut records = spk();
        let n_at = (3 * RECORD / 8 + 20 - 1) * 8;
        records[n_at..n_at + 8].copy_from_slice(&3.0f64.to_le_bytes());
        assert!(err(records).contains("do not fill"), "{}", err(spk()));
        assert!(err(spk()[..RECORD - 1].to_vec()).contains("shorter"));
    }

    #[test]
    fn chebyshev_sums_and_derivatives() {
        // 1 + 2s + 3(2s² − 1) + 4(4s³ − 3s) and its derivative.
        let c = [1.0, 2.0, 3.0, 4.0];
        let s: f64 = 0.3;
        let (v, d) = super::clenshaw(&c, s);
        assert!((v - (1.0 + 2.0 * s + 3.0 * (2.0 * s * s - 1.0) + 4.0 * (4.0 * s.powi(3) - 3.0 * s))).abs() < 1e-15);
        assert!((d - (2.0 + 12.0 * s + 4.0 * (12.0 * s * s - 3.0))).abs() < 1e-14);
    }
}
