//! Epochs: calendar dates, UTC with the leap seconds of a leapseconds kernel (LSK), and TDB
//! seconds past J2000 (SPICE's "ephemeris time", ET).
//!
//! `TAI = UTC + ΔAT` (the LSK's `DELTET/DELTA_AT` table), `TT = TAI + 32.184 s`
//! (`DELTET/DELTA_T_A`), `TDB = TT + K sin E` with `E = M + e_b sin M`, `M = M₀ + M₁ TT`
//! (`DELTET/K`, `DELTET/EB`, `DELTET/M`): the periodic term's 1.657 ms amplitude from Earth's
//! orbital eccentricity, the approximation SPICE's own `DELTET` makes (within 30 µs of the full
//! series).

use super::SpiceError;
use super::text::Pool;

const DAY: f64 = 86_400.0;
const MONTHS: [&str; 12] = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

/// Days from 2000-01-01 to the civil date (proleptic Gregorian).
fn days_from_2000(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468 - 10_957
}

/// The civil date of a day count from 2000-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 10_957 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { yoe + era * 400 + 1 } else { yoe + era * 400 }, m, d)
}

/// Seconds past 2000-01-01 12:00:00 of a calendar date without leap seconds:
/// `YYYY-MM-DD`, `YYYY-MON-DD` (a month's three letters), then optionally `T`, `/` or a space and
/// `HH:MM[:SS.fff]`. None when it is not such a date.
pub fn calendar_seconds(s: &str) -> Option<f64> {
    let s = s.trim();
    // The clock starts after the day: past the date's second '-' (a month's name may hold a T).
    let day_at = s.match_indices('-').filter(|(i, _)| *i > 0).nth(1)?.0;
    let (date, clock) = match s[day_at..].find(['T', '/', ' ']) {
        Some(i) => (&s[..day_at + i], Some(s[day_at + i + 1..].trim())),
        None => (s, None),
    };
    let mut parts = date.splitn(3, '-');
    let y: i64 = parts.next()?.parse().ok()?;
    let month = parts.next()?;
    let m = match month.parse::<i64>() {
        Ok(m) => m,
        Err(_) => MONTHS.iter().position(|n| n.eq_ignore_ascii_case(month))? as i64 + 1,
    };
    let d: i64 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || !(-9999..=9999).contains(&y) {
        return None;
    }
    let mut seconds = 0.0;
    if let Some(c) = clock.filter(|c| !c.is_empty()) {
        let mut f = c.split(':');
        let h: f64 = f.next()?.parse().ok()?;
        let mi: f64 = f.next().unwrap_or("0").parse().ok()?;
        let sec: f64 = f.next().unwrap_or("0").parse().ok()?;
        if f.next().is_some() || !(0.0..24.0).contains(&h) || !(0.0..60.0).contains(&mi) || !(0.0..61.0).contains(&sec)
        {
            return None;
        }
        if h.fract() != 0.0 || mi.fract() != 0.0 {
            return None;
        }
        seconds = h * 3600.0 + mi * 60.0 + sec;
    }
    Some((days_from_2000(y, m, d) as f64 - 0.5) * DAY + seconds)
}

/// The calendar of seconds past J2000 without leap seconds, `YYYY-MM-DDTHH:MM:SS.ffffff`.
pub fn calendar(seconds: f64) -> String {
    let micros = ((seconds + DAY / 2.0) * 1e6).round() as i64;
    let day = micros.div_euclid(86_400_000_000);
    let rest = micros.rem_euclid(86_400_000_000);
    let (y, m, d) = civil_from_days(day);
    let (h, rest) = (rest / 3_600_000_000, rest % 3_600_000_000);
    let (mi, rest) = (rest / 60_000_000, rest % 60_000_000);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{:02}.{:06}", rest / 1_000_000, rest % 1_000_000)
}

/// The time terms of a leapseconds kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Leapseconds {
    delta_t_a: f64,
    k: f64,
    eb: f64,
    m: [f64; 2],
    /// `(UTC seconds past J2000 at which it starts, TAI − UTC)`, ascending.
    table: Vec<(f64, f64)>,
}

impl Leapseconds {
    /// The terms from the kernel pool, or an error naming the missing variable.
    pub fn from_pool(pool: &Pool) -> Result<Option<Self>, SpiceError> {
        let Some(at) = pool.numbers("DELTET/DELTA_AT")? else { return Ok(None) };
        let one = |name: &str| -> Result<f64, SpiceError> {
            match pool.numbers(name)?.as_deref() {
                Some([v]) => Ok(*v),
                _ => Err(SpiceError::Kernel(format!("the leapseconds kernel lacks {name} (one number)"))),
            }
        };
        let m = match pool.numbers("DELTET/M")?.as_deref() {
            Some([a, b]) => [*a, *b],
            _ => return Err(SpiceError::Kernel("the leapseconds kernel lacks DELTET/M (two numbers)".into())),
        };
        if at.len() % 2 != 0 || at.is_empty() {
            return Err(SpiceError::Kernel("DELTET/DELTA_AT must hold pairs (seconds, @date)".into()));
        }
        let table: Vec<(f64, f64)> = at.chunks(2).map(|p| (p[1], p[0])).collect();
        if table.windows(2).any(|w| w[1].0 <= w[0].0) {
            return Err(SpiceError::Kernel("DELTET/DELTA_AT's dates must ascend".into()));
        }
        Ok(Some(Self { delta_t_a: one("DELTET/DELTA_T_A")?, k: one("DELTET/K")?, eb: one("DELTET/EB")?, m, table }))
    }

    /// `TAI − UTC` at UTC `utc` (seconds past J2000): the last entry at or before it (the
    /// first entry's before the table).
    fn delta_at(&self, utc: f64) -> f64 {
        let i = self.table.partition_point(|&(t, _)| t <= utc);
        self.table[i.saturating_sub(1)].1
    }

    /// ET (TDB seconds past J2000) of UTC `utc` (seconds past J2000 of the UTC calendar).
    pub fn utc_to_et(&self, utc: f64) -> f64 {
        let tt = utc + self.delta_at(utc) + self.delta_t_a;
        let m = self.m[0] + self.m[1] * tt;
        tt + self.k * (m + self.eb * m.sin()).sin()
    }
}

/// An epoch as a scenario states it: `YYYY-MM-DDTHH:MM:SS[.fff] [UTC|TDB]` (UTC unless it
/// ends in `TDB`; a trailing `Z` is UTC).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Epoch {
    /// UTC calendar seconds past J2000 (needs leap seconds).
    Utc(f64),
    /// TDB seconds past J2000 (ET).
    Tdb(f64),
}

impl Epoch {
    /// Parses an epoch, or says what it expected.
    pub fn parse(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let (body, tdb) = if let Some(b) = t.strip_suffix("TDB") {
            (b, true)
        } else if let Some(b) = t.strip_suffix("UTC").or_else(|| t.strip_suffix('Z')) {
            (b, false)
        } else {
            (t, false)
        };
        let sec = calendar_seconds(body.trim()).ok_or_else(|| {
            format!("'{s}' is not an epoch: expected YYYY-MM-DDTHH:MM:SS[.fff] with an optional UTC or TDB")
        })?;
        Ok(if tdb { Epoch::Tdb(sec) } else { Epoch::Utc(sec) })
    }

    /// ET of this epoch; a UTC epoch needs `lsk`.
    pub fn et(&self, lsk: Option<&Leapseconds>) -> Result<f64, SpiceError> {
        match (self, lsk) {
            (Epoch::Tdb(s), _) => Ok(*s),
            (Epoch::Utc(s), Some(l)) => Ok(l.utc_to_et(*s)),
            (Epoch::Utc(_), None) => Err(SpiceError::Missing(
                "a UTC epoch needs a leapseconds kernel (an LSK such as naif0012.tls) among the kernels, or give the epoch in TDB".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendars_round_trip_and_j2000_is_zero() {
        assert_eq!(calendar_seconds("2000-01-01T12:00:00"), Some(0.0));
        assert_eq!(calendar_seconds("2000-JAN-01/12:00"), Some(0.0));
        assert_eq!(calendar_seconds("1999-OCT-1"), calendar_seconds("1999-10-01T00:00:00"));
        assert_eq!(calendar_seconds("2000-03-01"), Some((60.0 - 0.5) * DAY));
        assert_eq!(calendar_seconds("1900-03-01"), Some((-36465.0 - 0.5) * DAY));
        for s in [-3.2e9, -1.0, 0.0, 1.5, 8.1e8 + 0.25, 3.0e9] {
            let c = calendar(s);
            assert_eq!(calendar_seconds(&c), Some(s), "{c}");
        }
        for bad in ["2000-13-01", "2000-01-01T25:00", "yesterday", "2000-01-01T12:00:00:00", "2000-01-01T1.5:00"] {
            assert_eq!(calendar_seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn epochs_name_their_scale() {
        assert_eq!(Epoch::parse("2000-01-01T12:00:00 TDB"), Ok(Epoch::Tdb(0.0)));
        assert_eq!(Epoch::parse("2000-01-01T12:00:00Z"), Ok(Epoch::Utc(0.0)));
        assert!(Epoch::parse("soon").unwrap_err().contains("YYYY-MM-DD"));
        assert!(Epoch::Utc(0.0).et(None).unwrap_err().to_string().contains("leapseconds"));
    }
}
