//! `modelDescription.xml` (FMI 3.0) of a [`Unit`], and the instantiation token that ties an
//! instance to the scenario it was packed from.

use crate::unit::{Type, Unit};
use std::fmt::Write;

/// The model identifier: the shared library's name in `binaries/<platform>/`.
pub const MODEL_IDENTIFIER: &str = "tumble_fmu";

/// The token of a packed scenario: FNV-1a (64 bits) of its text and of every file it names, as
/// a GUID-shaped string. An instance refuses a token that is not its resources'.
pub fn token(parts: &[&[u8]]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut g: u64 = 0x8422_2325_cbf2_9ce4;
    for part in parts {
        for &byte in part.iter().chain((part.len() as u64).to_le_bytes().iter()) {
            h = (h ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
            g = (g ^ byte as u64).wrapping_mul(0x0100_0000_01b3).rotate_left(5);
        }
    }
    let x = format!("{h:016x}{g:016x}");
    format!("{{{}-{}-{}-{}-{}}}", &x[..8], &x[8..12], &x[12..16], &x[16..20], &x[20..])
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The units the variables use, in SI base units.
const UNITS: [(&str, &str); 6] = [
    ("s", r#"s="1""#),
    ("m", r#"m="1""#),
    ("m/s", r#"m="1" s="-1""#),
    ("rad/s", r#"rad="1" s="-1""#),
    ("N", r#"kg="1" m="1" s="-2""#),
    ("N.m", r#"kg="1" m="2" s="-2""#),
];

/// The model description of `unit` with instantiation token `token`.
pub fn model_description(unit: &Unit, token: &str, description: &str) -> String {
    let (dt, duration) = unit.timing();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"{}\" instantiationToken=\"{token}\" description=\"{}\" \
         generationTool=\"Tumble {}\" variableNamingConvention=\"flat\">",
        escape(unit.name()),
        escape(description),
        env!("CARGO_PKG_VERSION"),
    );
    let _ = writeln!(
        x,
        "  <CoSimulation modelIdentifier=\"{MODEL_IDENTIFIER}\" canHandleVariableCommunicationStepSize=\"true\" \
         canGetAndSetFMUState=\"false\" canSerializeFMUState=\"false\" providesIntermediateUpdate=\"false\" \
         canReturnEarlyAfterIntermediateUpdate=\"false\" hasEventMode=\"false\"/>"
    );
    x += "  <UnitDefinitions>\n";
    for (name, base) in UNITS {
        let _ = writeln!(x, "    <Unit name=\"{name}\"><BaseUnit {base}/></Unit>");
    }
    x += "  </UnitDefinitions>\n";
    let _ = writeln!(x, "  <DefaultExperiment startTime=\"0\" stopTime=\"{duration:e}\" stepSize=\"{dt:e}\"/>");
    x += "  <ModelVariables>\n";
    for (vr, v) in unit.variables().iter().enumerate() {
        let ty = match v.ty {
            Type::Float64 => "Float64",
            Type::Int32 => "Int32",
        };
        let variability = match v.ty {
            Type::Float64 => "continuous",
            Type::Int32 => "discrete",
        };
        let _ = write!(
            x,
            "    <{ty} name=\"{}\" valueReference=\"{vr}\" description=\"{}\" causality=\"{}\" variability=\"{variability}\"",
            escape(&v.name),
            escape(&v.description),
            v.causality
        );
        if !v.unit.is_empty() && v.unit != "1" {
            let _ = write!(x, " unit=\"{}\"", v.unit);
        }
        if let Some(s) = v.start {
            let _ = write!(x, " start=\"{s:e}\"");
        }
        x += "/>\n";
    }
    x += "  </ModelVariables>\n  <ModelStructure>\n";
    // Every output, and (calculated at initialisation) every output again as an initial unknown;
    // no dependencies listed: each may depend on every input.
    let outputs: Vec<usize> =
        unit.variables().iter().enumerate().filter(|(_, v)| v.causality == "output").map(|(vr, _)| vr).collect();
    for element in ["Output", "InitialUnknown"] {
        for vr in &outputs {
            let _ = writeln!(x, "    <{element} valueReference=\"{vr}\"/>");
        }
    }
    x += "  </ModelStructure>\n</fmiModelDescription>\n";
    x
}
