//! CCSDS Navigation Data Messages (CCSDS 502.0-B-3 ODM, 504.0-B-2 ADM): Orbit Ephemeris
//! Messages (OEM 2.0) and Attitude Ephemeris Messages (AEM 1.0), each in KVN and in XML (NDM/XML
//! 2.0), written from any application's samples. Documented in `docs/interop.md`.
//!
//! Epochs are TDB calendar dates (`TIME_SYSTEM = TDB`) to the microsecond; OEM states in km and
//! km/s; AEM quaternions scalar first (`QUATERNION_TYPE = FIRST`). Samples whose epoch does not
//! advance past the previous one (a stop recorded at an output time) are left out: a message's
//! epochs increase strictly.

use std::fmt::Write;
use tumble_dynamics::spice::time::calendar;

/// Who writes the messages.
pub const ORIGINATOR: &str = "TUMBLE";

/// The metadata of one segment.
#[derive(Clone, Debug)]
pub struct Meta {
    /// `OBJECT_NAME`.
    pub object_name: String,
    /// `OBJECT_ID`.
    pub object_id: String,
    /// `CENTER_NAME`: the body the positions are relative to.
    pub center_name: String,
    /// `REF_FRAME` (OEM) or `REF_FRAME_A` (AEM).
    pub ref_frame: String,
    /// AEM only: `REF_FRAME_B`, the spacecraft's body frame.
    pub body_frame: String,
    /// Lines of `COMMENT` at the start of the metadata.
    pub comments: Vec<String>,
}

/// The current UTC time as a CCSDS date, or `SOURCE_DATE_EPOCH` (Unix seconds, the
/// reproducible-builds convention) when set, so that runs can pin their messages bit for bit.
pub fn creation_date() -> String {
    let unix =
        std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.trim().parse::<i64>().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
        });
    // Unix time counts UTC days of 86400 s from 1970-01-01, 946 728 000 s before J2000's noon.
    calendar((unix - 946_728_000) as f64)
}

/// Epochs (TDB calendar) of `times` (ET), those that advance strictly, with their indices.
fn epochs(times: &[f64]) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::with_capacity(times.len());
    let mut last = f64::NEG_INFINITY;
    for (i, &t) in times.iter().enumerate() {
        let e = calendar(t);
        if t > last && out.last().is_none_or(|(_, p)| *p != e) {
            out.push((i, e));
            last = t;
        }
    }
    out
}

fn kvn_meta(s: &mut String, m: &Meta, frame_keys: &[(&str, &str)], span: (&str, &str)) {
    s.push_str("META_START\n");
    for c in &m.comments {
        let _ = writeln!(s, "COMMENT {c}");
    }
    let _ =
        writeln!(s, "OBJECT_NAME = {}\nOBJECT_ID = {}\nCENTER_NAME = {}", m.object_name, m.object_id, m.center_name);
    for (k, v) in frame_keys {
        let _ = writeln!(s, "{k} = {v}");
    }
    let _ = writeln!(s, "TIME_SYSTEM = TDB\nSTART_TIME = {}\nSTOP_TIME = {}", span.0, span.1);
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn xml_head(s: &mut String, kind: &str, version: &str, created: &str) {
    let _ = write!(
        s,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<{kind} xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:noNamespaceSchemaLocation=\"https://sanaregistry.org/r/ndmxml_unqualified/ndmxml-2.0.0-master-2.0.xsd\" id=\"CCSDS_{}_VERS\" version=\"{version}\">\n  <header>\n    <CREATION_DATE>{created}</CREATION_DATE>\n    <ORIGINATOR>{ORIGINATOR}</ORIGINATOR>\n  </header>\n  <body>\n    <segment>\n      <metadata>\n",
        kind.to_uppercase()
    );
}

fn xml_meta(s: &mut String, m: &Meta, frame_keys: &[(&str, &str)], span: (&str, &str), tail: &[(&str, &str)]) {
    for c in &m.comments {
        let _ = writeln!(s, "        <COMMENT>{}</COMMENT>", xml_escape(c));
    }
    let mut keys = vec![
        ("OBJECT_NAME", m.object_name.as_str()),
        ("OBJECT_ID", m.object_id.as_str()),
        ("CENTER_NAME", m.center_name.as_str()),
    ];
    keys.extend_from_slice(frame_keys);
    keys.extend([("TIME_SYSTEM", "TDB"), ("START_TIME", span.0), ("STOP_TIME", span.1)]);
    keys.extend_from_slice(tail);
    for (k, v) in keys {
        let _ = writeln!(s, "        <{k}>{}</{k}>", xml_escape(v));
    }
    s.push_str("      </metadata>\n      <data>\n");
}

fn xml_tail(s: &mut String, kind: &str) {
    let _ = write!(s, "      </data>\n    </segment>\n  </body>\n</{kind}>\n");
}

/// An OEM of positions (m) and velocities (m/s) at ET `times`, in KVN and XML.
pub fn oem(m: &Meta, times: &[f64], states: &[[f64; 6]], created: &str) -> (String, String) {
    let e = epochs(times);
    let span = (e.first().map_or("", |x| x.1.as_str()), e.last().map_or("", |x| x.1.as_str()));
    let frame = [("REF_FRAME", m.ref_frame.as_str())];
    let mut kvn = format!("CCSDS_OEM_VERS = 2.0\nCREATION_DATE = {created}\nORIGINATOR = {ORIGINATOR}\n\n");
    kvn_meta(&mut kvn, m, &frame, span);
    kvn.push_str("META_STOP\n\n");
    let mut xml = String::new();
    xml_head(&mut xml, "oem", "2.0", created);
    xml_meta(&mut xml, m, &frame, span, &[]);
    let names = ["X", "Y", "Z", "X_DOT", "Y_DOT", "Z_DOT"];
    for (i, epoch) in &e {
        let km = states[*i].map(|x| x / 1e3);
        let _ = writeln!(kvn, "{epoch} {}", km.map(|x| format!("{x:.16e}")).join(" "));
        let _ = write!(xml, "        <stateVector>\n          <EPOCH>{epoch}</EPOCH>\n");
        for (n, x) in names.iter().zip(km) {
            let _ = writeln!(xml, "          <{n}>{x:.16e}</{n}>");
        }
        xml.push_str("        </stateVector>\n");
    }
    xml_tail(&mut xml, "oem");
    (kvn, xml)
}

/// An AEM of quaternions `[w, x, y, z]` at ET `times`: the Hamilton quaternion `q` with
/// `v_A = q v_B q*` (B's coordinates into A's), which is the ADM's `A2B` quaternion (its
/// direction cosine matrix takes A-coordinates to B's), scalar first.
pub fn aem(m: &Meta, times: &[f64], quats: &[[f64; 4]], created: &str) -> (String, String) {
    let e = epochs(times);
    let span = (e.first().map_or("", |x| x.1.as_str()), e.last().map_or("", |x| x.1.as_str()));
    let frames =
        [("REF_FRAME_A", m.ref_frame.as_str()), ("REF_FRAME_B", m.body_frame.as_str()), ("ATTITUDE_DIR", "A2B")];
    let kind = [("ATTITUDE_TYPE", "QUATERNION"), ("QUATERNION_TYPE", "FIRST")];
    let mut kvn = format!("CCSDS_AEM_VERS = 1.0\nCREATION_DATE = {created}\nORIGINATOR = {ORIGINATOR}\n\n");
    kvn_meta(&mut kvn, m, &frames, span);
    for (k, v) in kind {
        let _ = writeln!(kvn, "{k} = {v}");
    }
    kvn.push_str("META_STOP\n\nDATA_START\n");
    let mut xml = String::new();
    xml_head(&mut xml, "aem", "1.0", created);
    xml_meta(&mut xml, m, &frames, span, &kind);
    for (i, epoch) in &e {
        // The sign that keeps the scalar part non-negative: one of the two quaternions of a
        // rotation, chosen the same way at every epoch where the scalar part allows.
        let q = quats[*i];
        let q = if q[0] < 0.0 { q.map(|c| -c) } else { q };
        let _ = writeln!(kvn, "{epoch} {}", q.map(|x| format!("{x:.16e}")).join(" "));
        let _ = write!(
            xml,
            "        <attitudeState>\n          <quaternionState>\n            <EPOCH>{epoch}</EPOCH>\n            <quaternion>\n              <QC>{:.16e}</QC>\n              <Q1>{:.16e}</Q1>\n              <Q2>{:.16e}</Q2>\n              <Q3>{:.16e}</Q3>\n            </quaternion>\n          </quaternionState>\n        </attitudeState>\n",
            q[0], q[1], q[2], q[3]
        );
    }
    kvn.push_str("DATA_STOP\n");
    xml_tail(&mut xml, "aem");
    (kvn, xml)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_advance_strictly_and_creation_can_be_pinned() {
        let e = epochs(&[0.0, 1.0, 1.0, 1.0000001, 2.0]);
        assert_eq!(e.iter().map(|x| x.0).collect::<Vec<_>>(), vec![0, 1, 4]);
        assert_eq!(e[0].1, "2000-01-01T12:00:00.000000");
    }

    #[test]
    fn messages_hold_every_advancing_sample() {
        let m = Meta {
            object_name: "a&b".into(),
            object_id: "1".into(),
            center_name: "EROS".into(),
            ref_frame: "EME2000".into(),
            body_frame: "SC_BODY_1".into(),
            comments: vec!["test".into()],
        };
        let (kvn, xml) = oem(&m, &[0.0, 10.0], &[[1e3, 2e3, 3e3, 1.0, 2.0, 3.0]; 2], "2026-01-01T00:00:00.000000");
        assert_eq!(kvn.lines().filter(|l| l.starts_with("2000-01-01T12:00:")).count(), 2);
        assert!(kvn.contains("2000-01-01T12:00:10.000000 1.0000000000000000e0 2.0000000000000000e0"));
        assert!(xml.contains("<OBJECT_NAME>a&amp;b</OBJECT_NAME>") && xml.matches("<stateVector>").count() == 2);
        let (kvn, xml) = aem(&m, &[0.0], &[[-1.0, 0.0, 0.0, 0.0]], "x");
        assert!(kvn.contains("ATTITUDE_DIR = A2B") && kvn.contains(" 1.0000000000000000e0 "));
        assert!(xml.contains("<QC>1.0000000000000000e0</QC>"));
    }
}
