//! GPU batch backend: compute kernels in 64-bit floats that advance many independent runs at
//! once, one run per invocation, state in structure-of-arrays device buffers.
//!
//! Tumble's GPU path runs on Vulkan through `wgpu` and needs an adapter with 64-bit float and
//! integer shaders (`SHADER_F64`, `SHADER_INT64`, for the terrain's lattice hash: NVIDIA GPUs;
//! Mesa's lavapipe on the CPU, which CI uses). Where there is none,
//! [`Gpu::new`] says so in one line and suggests the CPU backend; nothing falls back silently.
//!
//! Vulkan defines `log`, `atan` and the other transcendentals for 32-bit floats only (given f64
//! some drivers return garbage without an error), so kernels take theirs from [`MATH_WGSL`]:
//! `ln64`, `atan64`, `atan2_64`, built from exact reductions and series.

pub mod campaign;
pub mod gravity;
mod hops;
pub mod lander;
mod surface;

/// WGSL source of the 64-bit `ln64`, `atan64` and `atan2_64` (prepend it to a kernel).
pub const MATH_WGSL: &str = include_str!("math.wgsl");

/// Invocations per workgroup of Tumble's kernels (`@workgroup_size(64)`).
pub const WORKGROUP: u32 = 64;

/// A device able to run Tumble's kernels.
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    /// Compiled kernels by source, entry points and buffer count (compiling takes seconds on
    /// some drivers; a campaign's batches reuse them).
    compiled: std::sync::Mutex<Vec<(String, Compiled)>>,
    /// The first error no error scope caught (wgpu's default would panic): reported by the
    /// next operation that waits for the device.
    uncaptured: std::sync::Arc<std::sync::Mutex<Option<String>>>,
}

/// A compiled program: its bind group layout and a pipeline per entry point.
#[derive(Clone)]
struct Compiled {
    layout: wgpu::BindGroupLayout,
    pipelines: Vec<(String, wgpu::ComputePipeline)>,
}

impl Gpu {
    /// The first Vulkan adapter with 64-bit float and integer shaders (a discrete GPU first,
    /// then any, lavapipe included), or why there is none, in one line.
    pub fn new() -> Result<Self, String> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::VULKAN;
        let instance = wgpu::Instance::new(desc);
        let mut adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        if adapters.is_empty() {
            return Err("no Vulkan device found (install a GPU driver, or Mesa's lavapipe: Debian's mesa-vulkan-drivers); use the CPU backend (`--backend cpu`)".into());
        }
        adapters.sort_by_key(|a| match a.get_info().device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            _ => 3,
        });
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        let needs = wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_INT64;
        let Some(adapter) = adapters.into_iter().find(|a| a.features().contains(needs)) else {
            return Err(format!(
                "no Vulkan device offers 64-bit float and integer shaders (SHADER_F64, SHADER_INT64; found: {}); use the CPU backend (`--backend cpu`)",
                names.join(", ")
            ));
        };
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("tumble"),
            required_features: needs,
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| {
            format!(
                "the Vulkan device {} refused to open: {e}; use the CPU backend (`--backend cpu`)",
                adapter.get_info().name
            )
        })?;
        let uncaptured: std::sync::Arc<std::sync::Mutex<Option<String>>> = Default::default();
        let slot = uncaptured.clone();
        device.on_uncaptured_error(std::sync::Arc::new(move |e: wgpu::Error| {
            slot.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(|| e.to_string());
        }));
        Ok(Self { device, queue, info: adapter.get_info(), limits, compiled: Default::default(), uncaptured })
    }

    /// Waits for the device's work; an error it reported is returned, prefixed with `what`.
    fn wait(&self, what: &str) -> Result<(), String> {
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| format!("{what}: {e}"))?;
        match self.uncaptured.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(format!("{what}: {e}")),
            None => Ok(()),
        }
    }

    /// The adapter's name and driver, e.g. "llvmpipe (LLVM 15.0.6, 256 bits), Mesa 22.3.6".
    pub fn name(&self) -> String {
        format!("{} ({:?}, {} {})", self.info.name, self.info.device_type, self.info.driver, self.info.driver_info)
    }

    /// The most invocations one dispatch along x may have (workgroups of [`WORKGROUP`]).
    pub fn max_invocations(&self) -> u64 {
        self.limits.max_compute_workgroups_per_dimension as u64 * WORKGROUP as u64
    }

    /// The largest storage buffer the device binds, bytes.
    pub fn max_buffer(&self) -> u64 {
        self.limits.max_storage_buffer_binding_size.min(self.limits.max_buffer_size)
    }

    /// Compiles the WGSL `source` for the entry points `entries` and uploads `buffers`, bound
    /// read-write at group 0, bindings 0, 1, … (every entry point sees the same layout). A shader
    /// that does not compile or validate, or buffers the device cannot hold, are errors, not
    /// panics.
    pub fn kernels(&self, source: &str, entries: &[&str], buffers: &[&[f64]]) -> Result<Kernels<'_>, String> {
        let d = &self.device;
        let limit = self.max_buffer();
        if let Some(b) = buffers.iter().find(|b| 8 * b.len() as u64 > limit) {
            return Err(format!(
                "a buffer of {} MiB exceeds the device's largest storage buffer ({} MiB): split the batch",
                (8 * b.len() as u64) >> 20,
                limit >> 20
            ));
        }
        let compiled = self.compile(source, entries, buffers.len())?;
        let memory = d.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = d.push_error_scope(wgpu::ErrorFilter::Validation);
        let storage: Vec<wgpu::Buffer> = buffers
            .iter()
            .map(|b| {
                // A binding needs at least one element.
                let one = [0.0];
                let contents: &[f64] = if b.is_empty() { &one } else { b };
                // Created unmapped and filled through the queue: a buffer the device cannot
                // allocate is then an error in the scope, not a panic on mapping it.
                let buffer = d.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size: 8 * contents.len() as u64,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                self.queue.write_buffer(&buffer, 0, bytemuck::cast_slice(contents));
                buffer
            })
            .collect();
        let entries: Vec<wgpu::BindGroupEntry> = storage
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() })
            .collect();
        let group = d.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &compiled.layout,
            entries: &entries,
        });
        if let Some(e) = pollster::block_on(validation.pop()) {
            return Err(format!("kernel `{}`: {e}", entries_name(&compiled.pipelines)));
        }
        if let Some(e) = pollster::block_on(memory.pop()) {
            return Err(format!("the device is out of memory for this batch ({e}): split it"));
        }
        Ok(Kernels { gpu: self, pipelines: compiled.pipelines, buffers: storage, group, staging: Default::default() })
    }

    /// The program of `source` with `entries` over `bindings` read-write storage buffers,
    /// compiled once per device.
    fn compile(&self, source: &str, entries: &[&str], bindings: usize) -> Result<Compiled, String> {
        let key = format!("{bindings} {}\n{source}", entries.join(" "));
        let mut cache = self.compiled.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, c)) = cache.iter().find(|(k, _)| *k == key) {
            return Ok(c.clone());
        }
        let d = &self.device;
        let validation = d.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = d.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(entries.first().copied().unwrap_or("kernels")),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let layout_entries: Vec<wgpu::BindGroupLayoutEntry> = (0..bindings as u32)
            .map(|binding| wgpu::BindGroupLayoutEntry {
                binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let layout =
            d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: None, entries: &layout_entries });
        let pipeline_layout = d.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipelines: Vec<(String, wgpu::ComputePipeline)> = entries
            .iter()
            .map(|entry| {
                let p = d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                });
                (entry.to_string(), p)
            })
            .collect();
        if let Some(e) = pollster::block_on(validation.pop()) {
            return Err(format!("kernel `{}`: {e}", entries.join("`, `")));
        }
        let c = Compiled { layout, pipelines };
        cache.push((key, c.clone()));
        Ok(c)
    }

    /// Runs `entry` of the WGSL `source` over `count` invocations (workgroups of [`WORKGROUP`])
    /// with `buffers` bound read-write at group 0, bindings 0, 1, …, and reads them back.
    pub fn run_f64(&self, source: &str, entry: &str, buffers: &mut [&mut [f64]], count: u32) -> Result<(), String> {
        let views: Vec<&[f64]> = buffers.iter().map(|b| &**b).collect();
        let k = self.kernels(source, &[entry], &views)?;
        k.dispatch(entry, count)?;
        for (i, b) in buffers.iter_mut().enumerate() {
            k.read_into(i, b)?;
        }
        Ok(())
    }
}

fn entries_name(p: &[(String, wgpu::ComputePipeline)]) -> String {
    p.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join("`, `")
}

/// Compiled kernels and their buffers on the device (see [`Gpu::kernels`]).
pub struct Kernels<'g> {
    gpu: &'g Gpu,
    pipelines: Vec<(String, wgpu::ComputePipeline)>,
    buffers: Vec<wgpu::Buffer>,
    group: wgpu::BindGroup,
    staging: std::cell::RefCell<Vec<wgpu::Buffer>>,
}

impl Kernels<'_> {
    /// Records work with `record`, submits it and waits for it; a validation error is returned.
    fn submit(&self, what: &str, record: impl FnOnce(&mut wgpu::CommandEncoder)) -> Result<(), String> {
        let d = &self.gpu.device;
        let scope = d.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut enc = d.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(what) });
        record(&mut enc);
        self.gpu.queue.submit([enc.finish()]);
        let waited = self.gpu.wait(what);
        match pollster::block_on(scope.pop()) {
            Some(e) => Err(format!("{what}: {e}")),
            None => waited,
        }
    }

    /// Runs `entry` over `count` invocations and waits for it.
    pub fn dispatch(&self, entry: &str, count: u32) -> Result<(), String> {
        self.copy_and_dispatch(&[], entry, count)
    }

    /// Copies buffers (`(from, to)`, same sizes), then runs `entry` over `count` invocations,
    /// in one submission.
    pub fn copy_and_dispatch(&self, copies: &[(usize, usize)], entry: &str, count: u32) -> Result<(), String> {
        let Some((_, pipeline)) = self.pipelines.iter().find(|(n, _)| n == entry) else {
            return Err(format!("no kernel `{entry}` (have `{}`)", entries_name(&self.pipelines)));
        };
        self.submit(&format!("kernel `{entry}`"), |enc| {
            self.record_copies(enc, copies);
            let mut pass =
                enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(entry), timestamp_writes: None });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &self.group, &[]);
            pass.dispatch_workgroups(count.div_ceil(WORKGROUP), 1, 1);
        })
    }

    fn record_copies(&self, enc: &mut wgpu::CommandEncoder, copies: &[(usize, usize)]) {
        for &(from, to) in copies {
            enc.copy_buffer_to_buffer(&self.buffers[from], 0, &self.buffers[to], 0, self.buffers[from].size());
        }
    }

    /// Replaces the contents of buffer `i` (same length); takes effect before the next
    /// submission.
    pub fn write(&self, i: usize, data: &[f64]) {
        self.gpu.queue.write_buffer(&self.buffers[i], 0, bytemuck::cast_slice(data));
    }

    /// Copies buffers on the device (`(from, to)`, same sizes), in one submission.
    pub fn copy(&self, copies: &[(usize, usize)]) -> Result<(), String> {
        self.submit("copy", |enc| self.record_copies(enc, copies))
    }

    /// Reads buffer `i` back into `out` (its length, or less), through a staging buffer kept
    /// for the next read of that size.
    pub fn read_into(&self, i: usize, out: &mut [f64]) -> Result<(), String> {
        let size = (8 * out.len() as u64).max(8);
        let mut staging = self.staging.borrow_mut();
        let at = match staging.iter().position(|b| b.size() == size) {
            Some(at) => at,
            None => {
                staging.push(self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }));
                staging.len() - 1
            }
        };
        let buffer = &staging[at];
        self.submit("read", |enc| enc.copy_buffer_to_buffer(&self.buffers[i], 0, buffer, 0, size))?;
        buffer.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        self.gpu.wait("read")?;
        {
            let view = buffer.slice(..).get_mapped_range().map_err(|e| format!("read: {e}"))?;
            let data: &[f64] = bytemuck::cast_slice(&view);
            out.copy_from_slice(&data[..out.len()]);
        }
        buffer.unmap();
        Ok(())
    }
}
