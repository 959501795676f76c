//! `toolgate._toolgate`: the native half of the Python package.
//!
//! The Python package (`python/toolgate/`) re-exports what is here and adds
//! the parts that are easier to say in Python (Spark). Everything that
//! classifies runs in Rust, with the GIL released, so a Python runtime's
//! other threads go on while a batch is labelled.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{Array, ArrayRef, LargeStringArray, StringArray, StringViewArray, StructArray};
use arrow_data::ArrayData;
use arrow_pyarrow::{FromPyArrow, ToPyArrow};
use arrow_schema::{DataType, Field, Fields};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use serde_json::Value;
use toolgate::batch::Batch;
use toolgate::gate::{CompoundPolicy, Gate as RustGate, GateConfig, Mode};
use toolgate::profile::ProfileConfig;
use toolgate::{Classifier, Context, Hints, Label as RustLabel, ToolLabeler};

mod fields;

use fields::Shown;

/// The embedded classifier, or the Python exception that says why it
/// could not load (it cannot, short of a broken build).
fn classifier() -> PyResult<&'static Classifier> {
    Classifier::embedded().map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// A working directory as the classifier takes it: absolute or nothing.
fn context(cwd: Option<&str>) -> PyResult<Context<'_>> {
    match cwd {
        Some(dir) if !dir.starts_with('/') => Err(PyValueError::new_err(format!(
            "cwd must be an absolute path, got {dir:?}"
        ))),
        cwd => Ok(Context { cwd }),
    }
}

/// The safety sticker on one tool call.
///
/// Immutable. `metadata()` is the dict hook authors match on, the same
/// keys and values as the Rust `Label::metadata()`.
#[pyclass(frozen, eq, skip_from_py_object, module = "toolgate", name = "Label")]
#[derive(Clone, PartialEq)]
struct Label {
    inner: RustLabel,
}

#[pymethods]
impl Label {
    /// `"safe"`, `"destructive"` or `"unknown"`.
    #[getter]
    fn safety_label(&self) -> &'static str {
        self.inner.class.as_str()
    }

    /// `"safe"`, `"low"`, `"medium"`, `"high"` or `"unknown"` (also for an
    /// empty command: nothing to judge is not known).
    #[getter]
    fn blast_radius(&self) -> &'static str {
        Shown::of(&self.inner).blast_radius
    }

    /// The taxonomy category (`"fs-delete"`, `"git-read"`, …), or `None`.
    #[getter]
    fn category(&self) -> Option<&str> {
        Shown::of(&self.inner).category
    }

    /// Why the label is what it is, for a person; `None` for an unknown
    /// label, which has no positive reason to give.
    #[getter]
    fn reason(&self) -> Option<&str> {
        Shown::of(&self.inner).reason
    }

    /// `"classifier"` or `"annotation"` (an MCP tool's own hints).
    #[getter]
    fn origin(&self) -> &'static str {
        self.inner.origin.as_str()
    }

    /// The keys `safety_label`, `blast_radius`, `category`, `reason`, each
    /// only when it has a value.
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (key, value) in self.inner.metadata() {
            dict.set_item(key, value)?;
        }
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        let s = Shown::of(&self.inner);
        format!(
            "Label(safety_label={:?}, blast_radius={:?}, category={}, reason={})",
            s.safety_label,
            s.blast_radius,
            py_repr(s.category),
            py_repr(s.reason),
        )
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let s = Shown::of(&self.inner);
        (s.safety_label, s.blast_radius, s.category, s.reason).hash(&mut h);
        self.inner.origin.as_str().hash(&mut h);
        h.finish()
    }
}

/// A Python literal for an optional string.
fn py_repr(s: Option<&str>) -> String {
    s.map_or_else(|| "None".to_string(), |s| format!("{s:?}"))
}

/// What a gate says about one call.
#[pyclass(frozen, module = "toolgate", name = "Verdict")]
struct Verdict {
    /// `"allow"`, `"ask"` or `"deny"`.
    #[pyo3(get)]
    decision: &'static str,
    /// Why, for a person.
    #[pyo3(get)]
    reason: String,
    /// What decided: `mode_balanced`, `rule_deny`, `profile_NAME`, …
    #[pyo3(get)]
    source: String,
    /// The call's label.
    #[pyo3(get)]
    label: Py<Label>,
}

#[pymethods]
impl Verdict {
    fn __repr__(&self) -> String {
        format!(
            "Verdict(decision={:?}, source={:?}, reason={:?}, label={})",
            self.decision,
            self.source,
            self.reason,
            self.label.get().__repr__()
        )
    }
}

/// Labels one shell command.
///
/// `cmd` is a `str`, or `bytes` (a command that is not UTF-8 is unknown).
/// `cwd`, when given, is the absolute directory the command runs in: an
/// absolute path below it then counts as inside the project. A `str` that
/// cannot be UTF-8 (lone surrogates) raises `UnicodeEncodeError`; anything
/// else but `str` or `bytes` raises `TypeError`, a relative `cwd`
/// `ValueError`.
#[pyfunction]
#[pyo3(signature = (cmd, cwd=None))]
fn classify(py: Python<'_>, cmd: &Bound<'_, PyAny>, cwd: Option<String>) -> PyResult<Label> {
    let c = classifier()?;
    let ctx = context(cwd.as_deref())?;
    // The stable ABI before 3.10 has no borrowed view of a str's UTF-8:
    // encode it once into a bytes object and read that in place (pyo3's
    // `to_cow` would copy it a second time).
    let encoded;
    let bytes = if let Ok(b) = cmd.cast::<PyBytes>() {
        b.as_bytes()
    } else if let Ok(s) = cmd.cast::<PyString>() {
        encoded = s.encode_utf8()?;
        encoded.as_bytes()
    } else {
        return Err(PyTypeError::new_err(format!(
            "a command is a str or bytes, not {}",
            cmd.get_type().name()?
        )));
    };
    let inner = match std::str::from_utf8(bytes) {
        Ok(text) => classify_releasing(py, c, text, &ctx),
        Err(_) => toolgate::classify_bytes(bytes),
    };
    Ok(Label { inner })
}

/// Commands at least this long are classified with the GIL released.
///
/// Releasing and taking back the GIL costs about as much as classifying a
/// short command (python/bench/bench_python.py: `git status` from Python
/// 1.8 µs with the release, 0.9 µs without, against 0.6 µs in Rust), while
/// a few microseconds under the GIL stop no other thread for long. A long
/// command can take milliseconds: then the other threads go on.
const RELEASE_GIL_AT: usize = 4096;

fn classify_releasing(py: Python<'_>, c: &Classifier, cmd: &str, ctx: &Context<'_>) -> RustLabel {
    if cmd.len() >= RELEASE_GIL_AT {
        py.detach(|| c.classify_in(cmd, ctx))
    } else {
        c.classify_in(cmd, ctx)
    }
}

/// Why a command got its label: the commands found in it, the rules and
/// specs that matched, and why it is not safe, as JSON text (the Python
/// side parses it into a dict).
#[pyfunction]
#[pyo3(signature = (cmd, cwd=None))]
fn explain_json(py: Python<'_>, cmd: String, cwd: Option<String>) -> PyResult<String> {
    let c = classifier()?;
    let ctx = context(cwd.as_deref())?;
    let analysis = py.detach(|| c.analyze_in(&cmd, &ctx));
    serde_json::to_string(&analysis).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Parses a tool call's arguments, given as JSON text.
fn arguments(args_json: &str) -> PyResult<Value> {
    serde_json::from_str(args_json)
        .map_err(|e| PyValueError::new_err(format!("the tool's arguments are not JSON: {e}")))
}

/// Parses MCP annotation hints, given as JSON text (`None`: none).
fn hints(hints_json: Option<&str>) -> PyResult<Option<Hints>> {
    hints_json
        .map(|h| {
            serde_json::from_str(h).map_err(|e| {
                PyValueError::new_err(format!(
                    "hints must be a dict with boolean readOnlyHint/destructiveHint: {e}"
                ))
            })
        })
        .transpose()
}

/// Labels one tool call: the shell tool by its command, any other by its
/// MCP hints. `args_json` and `hints_json` are JSON text (the Python side
/// serialises the dicts).
#[pyfunction]
#[pyo3(signature = (tool, args_json, hints_json=None, cwd=None))]
fn label_tool_call_json(
    py: Python<'_>,
    tool: String,
    args_json: String,
    hints_json: Option<String>,
    cwd: Option<String>,
) -> PyResult<Label> {
    let c = classifier()?;
    let ctx = context(cwd.as_deref())?;
    let args = arguments(&args_json)?;
    let hints = hints(hints_json.as_deref())?.unwrap_or_default();
    let label = || ToolLabeler::new(c).label_in(&tool, &args, hints, &ctx);
    let inner = if args_json.len() >= RELEASE_GIL_AT {
        py.detach(label)
    } else {
        label()
    };
    Ok(Label { inner })
}

/// Gates tool calls under a safety mode or a profile.
#[pyclass(frozen, module = "toolgate", name = "Gate")]
struct Gate {
    inner: RustGate<'static>,
    /// Look before allowing (the real file system, from the call's `cwd`).
    look: bool,
}

#[pymethods]
impl Gate {
    /// `mode`: `strict`, `balanced`, `restricted`, `autonomous` (or
    /// `yolo`), `legacy`; `profile`: an automation, action-class or custom
    /// profile name, which decides instead of the mode; `compound`:
    /// `refuse` (default) or `every-part-safe`. An unknown name raises
    /// `ValueError`: a typo must not silently mean strict. `look`: look
    /// at what a shell call would read before allowing it, as the hook
    /// does.
    #[new]
    #[pyo3(signature = (mode=None, profile=None, compound=None, look=false))]
    fn new(
        mode: Option<String>,
        profile: Option<String>,
        compound: Option<String>,
        look: bool,
    ) -> PyResult<Gate> {
        let c = classifier()?;
        let mode = mode
            .as_deref()
            .map(str::parse::<Mode>)
            .transpose()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let compound = compound
            .as_deref()
            .map(str::parse::<CompoundPolicy>)
            .transpose()
            .map_err(|e| PyValueError::new_err(e.to_string()))?
            .unwrap_or_default();
        let config = GateConfig {
            mode: mode.map(Mode::into).unwrap_or_default(),
            compound,
            ..GateConfig::default()
        };
        // The library's checked way: an unknown name is an error that says
        // what names there are, not the strict gate the hook gives.
        let config = match profile.as_deref() {
            Some(p) => config
                .with_profile(p)
                .map_err(|e| PyValueError::new_err(e.to_string()))?,
            None => config,
        };
        Ok(Gate {
            inner: RustGate::new(c, config).reaching(look),
            look,
        })
    }

    /// Decides one tool call. `args_json` and `hints_json` are JSON text.
    #[pyo3(signature = (tool, args_json, hints_json=None, cwd=None))]
    fn decide_json(
        &self,
        py: Python<'_>,
        tool: String,
        args_json: String,
        hints_json: Option<String>,
        cwd: Option<String>,
    ) -> PyResult<Verdict> {
        let ctx = context(cwd.as_deref())?;
        let args = arguments(&args_json)?;
        let hints = hints(hints_json.as_deref())?;
        let decide = || {
            if !self.look {
                return self.inner.decide_in(&tool, &args, hints, &ctx);
            }
            let assessed = self.inner.assess_in(&tool, &args, hints, &ctx);
            let verdict = self
                .inner
                .decide_assessed(&tool, &args, hints, None, assessed.clone());
            let dir = match ctx.cwd {
                Some(c) => toolgate::look::native_dir(c),
                None => std::env::current_dir().ok(),
            };
            toolgate::look::settle(
                &self.inner,
                verdict,
                &assessed,
                &tool,
                &args,
                dir.as_deref(),
                None,
                &toolgate::look::Budget::default(),
            )
        };
        let v = if args_json.len() >= RELEASE_GIL_AT {
            py.detach(decide)
        } else {
            decide()
        };
        Ok(Verdict {
            decision: v.decision.as_str(),
            reason: v.reason,
            source: v.source,
            label: Py::new(py, Label { inner: v.label })?,
        })
    }
}

/// Labels every string of an Arrow array, in order, on `threads` threads.
///
/// `commands` is anything with the Arrow C data interface holding
/// `string`, `large_string` or `string_view`; `cwds`, when given, an
/// array of the same length (a null row: unknown). Returns a struct array
/// with the string fields `safety_label`, `blast_radius`, `category` and
/// `reason`: exactly a label's `metadata()`, a missing key as null. A null
/// command gives a null row.
#[pyfunction]
#[pyo3(signature = (commands, cwds=None, threads=None))]
fn classify_arrow<'py>(
    py: Python<'py>,
    commands: &Bound<'py, PyAny>,
    cwds: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let c = classifier()?;
    let commands = ArrayData::from_pyarrow_bound(commands)?;
    let cwds = cwds.map(ArrayData::from_pyarrow_bound).transpose()?;
    let mut batch = Batch::default();
    if let Some(t) = threads {
        if t == 0 {
            return Err(PyValueError::new_err("threads must be at least 1"));
        }
        batch.threads = t;
    }
    let out = py.detach(|| label_rows(c, &batch, &commands, cwds.as_ref()))?;
    out.to_pyarrow(py)
}

/// The struct array of labels for `commands` (see [`classify_arrow`]).
fn label_rows(
    c: &Classifier,
    batch: &Batch,
    commands: &ArrayData,
    cwds: Option<&ArrayData>,
) -> PyResult<ArrayData> {
    let commands = Strings::new(commands.clone(), "commands")?;
    let cwds = cwds.map(|d| Strings::new(d.clone(), "cwds")).transpose()?;
    let texts = commands.rows();
    let dirs = cwds.as_ref().map(Strings::rows);
    if let (Some(d), Some(array)) = (&dirs, &cwds) {
        if array.len() != texts.len() {
            return Err(PyValueError::new_err(format!(
                "cwds has {} rows but commands has {}",
                array.len(),
                texts.len()
            )));
        }
        if let Some(bad) = d.iter().flatten().find(|d| !d.starts_with('/')) {
            return Err(PyValueError::new_err(format!(
                "every cwd must be an absolute path, got {bad:?}"
            )));
        }
    }
    let present: Vec<&str> = texts.iter().map(|t| t.unwrap_or("")).collect();
    let labels = match &dirs {
        Some(d) => batch.labels_in(c, &present, d),
        None => batch.labels(c, &present),
    };
    Ok(to_struct(&labels, &texts).into_data())
}

/// A string array in any of Arrow's three layouts, owned (its buffers
/// are shared with Python's, not copied).
enum Strings {
    Utf8(StringArray),
    Large(LargeStringArray),
    View(StringViewArray),
}

impl Strings {
    fn new(data: ArrayData, what: &str) -> PyResult<Strings> {
        Ok(match data.data_type() {
            DataType::Utf8 => Strings::Utf8(StringArray::from(data)),
            DataType::LargeUtf8 => Strings::Large(LargeStringArray::from(data)),
            DataType::Utf8View => Strings::View(StringViewArray::from(data)),
            other => {
                return Err(PyTypeError::new_err(format!(
                    "{what} must be an Arrow array of strings, got {other}"
                )))
            }
        })
    }

    fn len(&self) -> usize {
        match self {
            Strings::Utf8(a) => a.len(),
            Strings::Large(a) => a.len(),
            Strings::View(a) => a.len(),
        }
    }

    /// Every row, `None` for a null.
    fn rows(&self) -> Vec<Option<&str>> {
        match self {
            Strings::Utf8(a) => a.iter().collect(),
            Strings::Large(a) => a.iter().collect(),
            Strings::View(a) => a.iter().collect(),
        }
    }
}

/// The struct array of labels: one row per label, a null row where the
/// command was null.
fn to_struct(labels: &[RustLabel], commands: &[Option<&str>]) -> StructArray {
    let n = labels.len();
    let mut builders: [StringBuilder; 4] =
        std::array::from_fn(|_| StringBuilder::with_capacity(n, n * 8));
    for (label, command) in labels.iter().zip(commands) {
        let s = Shown::of(label);
        let values = match command {
            Some(_) => [
                Some(s.safety_label),
                Some(s.blast_radius),
                s.category,
                s.reason,
            ],
            None => [None; 4],
        };
        for (b, v) in builders.iter_mut().zip(values) {
            b.append_option(v);
        }
    }
    let fields: Fields = fields::NAMES
        .iter()
        .map(|name| Field::new(*name, DataType::Utf8, true))
        .collect();
    let columns: Vec<ArrayRef> = builders
        .iter_mut()
        .map(|b| Arc::new(b.finish()) as ArrayRef)
        .collect();
    let nulls = commands.iter().map(Option::is_some).collect();
    StructArray::new(fields, columns, Some(nulls))
}

/// For python/bench: seconds to label every command `rounds` times, one
/// `Classifier::classify` call each, with no Python in the loop: the Rust
/// in-process figure, measured in the same process as the Python one.
#[pyfunction]
fn _bench_classify(py: Python<'_>, commands: Vec<String>, rounds: usize) -> PyResult<f64> {
    let c = classifier()?;
    Ok(py.detach(|| {
        let start = std::time::Instant::now();
        for _ in 0..rounds {
            for cmd in &commands {
                std::hint::black_box(c.classify(std::hint::black_box(cmd)));
            }
        }
        start.elapsed().as_secs_f64()
    }))
}

/// For python/bench: seconds for `rounds` runs of the Rust batch API
/// (`Batch::labels`) over `commands` on `threads` threads.
#[pyfunction]
fn _bench_batch(
    py: Python<'_>,
    commands: Vec<String>,
    threads: usize,
    rounds: usize,
) -> PyResult<f64> {
    let c = classifier()?;
    let batch = Batch {
        threads: threads.max(1),
        ..Batch::default()
    };
    Ok(py.detach(|| {
        let start = std::time::Instant::now();
        for _ in 0..rounds {
            std::hint::black_box(batch.labels(c, &commands));
        }
        start.elapsed().as_secs_f64()
    }))
}

/// The native module.
#[pymodule]
fn _toolgate(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Label>()?;
    m.add_class::<Verdict>()?;
    m.add_class::<Gate>()?;
    m.add_function(wrap_pyfunction!(classify, m)?)?;
    m.add_function(wrap_pyfunction!(explain_json, m)?)?;
    m.add_function(wrap_pyfunction!(label_tool_call_json, m)?)?;
    m.add_function(wrap_pyfunction!(classify_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(_bench_classify, m)?)?;
    m.add_function(wrap_pyfunction!(_bench_batch, m)?)?;
    m.add("LABEL_FIELDS", fields::NAMES.to_vec())?;
    Ok(())
}
