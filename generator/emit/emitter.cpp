#include "emit/emitter.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "emit/c_names.h"
#include "emit/kernel_index.h"
#include "emit/op_summary.h"
#include "emit/template_engine.h"
#include "ir/loop_region.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/version.h"
#include "util/quoted.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {


// A file of the module: written under `dir`, or, when `dir` is empty
// (EmitOptions::write_files off), kept in `kept` (CompiledModule::files).
void write_file(const fs::path& dir, const std::string& name, const std::string& text,
                std::map<std::string, std::string>& kept) {
  if (dir.empty()) {
    kept[name] = text;
    return;
  }
  const fs::path p = dir / name;
  std::ofstream out(p, std::ios::binary);
  if (!out) throw CompileError("cannot write " + in_quotes(p.string()));
  out << text;
  if (!out) throw CompileError("error while writing " + in_quotes(p.string()));
}

std::string shape_dims(const Shape& s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r;
}

uint32_t tensor_alignment(DType t) {
  size_t s = dtype_size(t);
  return s == 0 ? 1u : uint32_t(s);
}

// The module's view of one caller tensor, for the templates and CompiledModule.
// Writes bytes as the body of a C array initializer, 16 per line ("  0x3f,...").
class HexArrayWriter {
 public:
  explicit HexArrayWriter(std::ostream& out) : out_(out) {}
  void bytes(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) put(p[i]);
  }
  void zeros(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) put(0);
  }
  void finish() {
    if (col_) out_ << line_ << '\n';
    col_ = 0;
  }

 private:
  void put(uint8_t b) {
    static const char* hex = "0123456789abcdef";
    if (col_ == 0) line_.assign("  ");
    line_ += "0x";
    line_ += hex[b >> 4];
    line_ += hex[b & 15];
    line_ += ',';
    if (++col_ == 16) finish();
  }
  std::ostream& out_;
  std::string line_;
  int col_ = 0;
};

struct IoTensor {
  const Value* value;
  CompiledTensor info;
  std::string macro;
};

class Emitter {
 public:
  Emitter(const Graph& g, const BufferizedProgram& p, const EmitPlan& plan, const EmitOptions& o)
      : g_(g),
        prog_(p),
        plan_(plan),
        opt_(o),
        mod_(o.module_name),
        MOD_(c_macro_name(o.module_name)),
        dir_(!o.write_files ? fs::path() : o.write_dir.empty() ? o.output_dir : o.write_dir) {}

  CompiledModule run() {
    if (!is_c_identifier(mod_))
      throw CompileError("--module-name " + in_quotes(mod_) + " is not a C identifier (letters, digits, '_'; no leading digit)");
    if (!dir_.empty()) fs::create_directories(dir_);
    collect_io();
    collect_pools();
    TemplateData d = common_data();
    // The C text of the module's code (not its constants): the kiln_* names in it
    // decide which runtime files the module needs (emit/kernel_index.h).
    std::vector<std::string> code = {render_template("metadata.h.mustache", d),
                                     render_template("module_internal.h.mustache", d),
                                     render_template("metadata.c.mustache", d),
                                     render_template("operators.c.mustache", operators_data(d))};
    check_macros_unique(code[0]);
    write_file(dir_, "metadata.h", code[0], files_);
    write_file(dir_, "module_internal.h", code[1], files_);
    write_file(dir_, "metadata.c", code[2], files_);
    write_file(dir_, "operators.c", code[3], files_);
    std::vector<std::string> sources = {"metadata.c", "operators.c"};
    for (size_t p = 0; p < plan_.pools.size(); ++p)
      if (!plan_.pools[p].is_workspace) sources.push_back(write_parameter_file(int(p), d));
    TemplateList srcs;
    for (const auto& s : sources) srcs.push_back(s);
    d.set("sources", srcs);
    const fs::path crt_home = kiln_home() / "crt";
    std::vector<std::string> crt_sources = KernelIndex::load(kernel_index_file()).needed_files(crt_home, code);
    TemplateList crt_list;
    for (const auto& s : crt_sources) crt_list.push_back(s);
    d.set("crt_sources", crt_list);
    d.set("dir_name", opt_.output_dir.filename().string());
    write_file(dir_, "module.mk", render_template("module.mk.mustache", d), files_);
    write_file(dir_, "CMakeLists.txt", render_template("CMakeLists.txt.mustache", d), files_);
    copy_crt();

    CompiledModule m;
    m.module_name = mod_;
    m.dir = opt_.output_dir;
    for (const auto& s : sources) m.sources.push_back(opt_.output_dir / s);
    m.crt_dir = opt_.output_dir / "crt";
    m.crt_sources = crt_sources;
    m.files = std::move(files_);
    for (const auto& op : prog_.ops) {
      CompiledOp co;
      co.label = op.label;
      co.op_type = op.node ? op.node->op_type : "copy";
      if (op.node && !op.node->outputs.empty() && op.node->outputs[0]) co.output_shape = op.node->outputs[0]->shape;
      co.macs = op.node ? multiply_accumulates(*op.node) : 0;
      m.ops.push_back(co);
    }
    m.include_dirs = {opt_.output_dir, m.crt_dir / "include"};
    for (const auto& t : inputs_) m.inputs.push_back(t.info);
    for (const auto& t : outputs_) m.outputs.push_back(t.info);
    for (const auto& si : g_.sequence_io) m.sequences.push_back({si.name, si.is_input, si.position, si.first, si.count});
    for (const auto& b : g_.bound_inputs) {
      CompiledBoundInput cb{b.name, b.position, {}};
      for (int64_t i = 0; i < b.value->num_elements(); ++i) cb.values.push_back(b.value->as_double(i));
      m.bound_inputs.push_back(cb);
    }
    for (size_t p = 0; p < plan_.pools.size(); ++p) {
      const auto& ep = plan_.pools[p];
      CompiledPool cp;
      cp.name = ep.name;
      cp.c_name = pool_cnames_[p];
      cp.is_workspace = ep.is_workspace;
      cp.is_user_pool = ep.is_user;
      cp.size_bytes = ep.size_bytes;
      cp.alignment = ep.alignment;
      cp.size_macro = size_macro(p);
      m.pools.push_back(cp);
    }
    return m;
  }

 private:
  void collect_io() {
    CNameTable in_names, out_names;
    auto make = [&](const Value* v, CNameTable& names) {
      IoTensor t;
      t.value = v;
      t.info.name = v->name;
      t.info.c_name = names.unique(v->name);
      t.info.dtype = v->dtype;
      t.info.shape = v->shape;
      t.info.size_bytes = v->size_bytes();
      t.macro = c_macro_name(t.info.c_name);
      if (dtype_c_type(v->dtype).empty())
        throw CompileError("graph input/output " + in_quotes(v->name) + " has dtype " + dtype_name(v->dtype) +
                           ", which generated C cannot hold");
      return t;
    };
    // A state's start and end values (ir/graph.h) come after the caller's inputs and
    // outputs and are not part of the API: they live in the state's buffer.
    for (size_t k = 0; k < g_.inputs.size(); ++k)
      if (!g_.state_of_input(k)) inputs_.push_back(make(g_.inputs[k], in_names));
    for (size_t k = 0; k < g_.outputs.size(); ++k)
      if (!g_.state_of_output(k)) outputs_.push_back(make(g_.outputs[k], out_names));
    if (inputs_.size() + g_.states.size() != g_.inputs.size())
      throw std::logic_error("emitter: the states are not the last graph inputs");
  }

  // An internal pool holding state whose initial value is not all zeros starts
  // with it (a C initializer, in hex rows), so the first run needs no reset; ""
  // when the zeroed array is that already.
  std::string state_image(size_t p) const {
    std::vector<uint8_t> image(plan_.pools[p].size_bytes, 0);
    for (const auto& b : prog_.buffers)
      if (b.kind == BufferKind::State && plan_.buffer_pool[size_t(b.id)] == int(p) && b.size_bytes)
        b.constant->write_bytes(image.data() + plan_.buffer_offset[size_t(b.id)]);
    if (std::all_of(image.begin(), image.end(), [](uint8_t x) { return x == 0; })) return "";
    std::ostringstream out;
    HexArrayWriter hex(out);
    hex.bytes(image.data(), image.size());
    hex.finish();
    return out.str();
  }

  // The state kept between runs (ir/graph.h): per state its size macro, place and
  // how kiln_<mod>_reset() restores it (a fill with one byte, or a copy of an
  // image), and the pools holding state, for reset's pointers.
  void state_data(TemplateData* d) const {
    TemplateList states, pools;
    std::set<int> seen_pools;
    bool user_pool = false;
    CNameTable names;
    for (const auto& b : prog_.buffers) {
      if (b.kind != BufferKind::State) continue;
      const int p = plan_.buffer_pool[size_t(b.id)];
      if (p < 0) throw std::logic_error("emitter: state " + in_quotes(b.name) + " has no pool");
      const StateVariable& sv = g_.states.at(size_t(b.io_index));
      std::vector<uint8_t> bytes(b.size_bytes);
      if (b.size_bytes) sv.initial->write_bytes(bytes.data());
      const bool uniform = std::all_of(bytes.begin(), bytes.end(), [&](uint8_t x) { return x == bytes[0]; });
      std::ostringstream image;
      if (!uniform) {
        HexArrayWriter hex(image);
        hex.bytes(bytes.data(), bytes.size());
        hex.finish();
      }
      const Value* v = g_.inputs[sv.input];
      states.push_back(TemplateObject{{"name", sv.name},
                                      {"macro", c_macro_name(names.unique(sv.name))},
                                      {"index", std::to_string(b.io_index)},
                                      {"size", std::to_string(b.size_bytes)},
                                      {"dtype", dtype_name(v->dtype)},
                                      {"shape", shape_str(v->shape)},
                                      {"pool", plan_.pools[size_t(p)].name},
                                      {"offset", std::to_string(plan_.buffer_offset[size_t(b.id)])},
                                      {"addr", byte_address(b.id, 0)},
                                      {"is_fill", uniform && b.size_bytes > 0},
                                      {"fill", std::to_string(bytes.empty() ? 0 : bytes[0])},
                                      {"image", text_or_false(!uniform, image.str())}});
      if (!seen_pools.insert(p).second) continue;
      const auto& ep = plan_.pools[size_t(p)];
      user_pool = user_pool || ep.is_user;
      pools.push_back(TemplateObject{{"pool_var", pool_var(size_t(p))},
                                     {"pool_cname", pool_cnames_[size_t(p)]},
                                     {"pool_array", pool_array(size_t(p))},
                                     {"ws_user", ep.is_user},
                                     {"alignment", std::to_string(ep.alignment)}});
    }
    d->set("has_state", TemplateData(!states.empty()));
    d->set("states", states);
    d->set("state_pools", pools);
    d->set("has_user_state_pool", TemplateData(user_pool));
  }

  // Each kind of name is unique within its kind (CNameTable); a user pool's name
  // could still spell another kind's macro ("input_x" and an input "x_workspace"
  // both give KILN_<MOD>_INPUT_X_WORKSPACE_SIZE): refuse that before writing.
  static void check_macros_unique(const std::string& header) {
    std::set<std::string> seen;
    size_t at = 0;
    const std::string def = "#define ";
    while ((at = header.find(def, at)) != std::string::npos) {
      at += def.size();
      const size_t end = header.find_first_of(" (\n", at);
      const std::string name = header.substr(at, end - at);
      if (!seen.insert(name).second)
        throw CompileError("two names give the macro " + name +
                           " in metadata.h; rename the pool (--with-workspace-buffer / --with-parameter-buffer)");
    }
  }

  void collect_pools() {
    // Workspace and parameter pools have separate namespaces (their macros and
    // arrays differ by suffix), so both internal pools can be called "internal".
    CNameTable ws_names, param_names;
    for (const auto& p : plan_.pools) pool_cnames_.push_back((p.is_workspace ? ws_names : param_names).unique(p.name));
  }

  std::string size_macro(size_t p) const {
    return "KILN_" + MOD_ + "_" + c_macro_name(pool_cnames_[p]) +
           (plan_.pools[p].is_workspace ? "_WORKSPACE_SIZE" : "_PARAMETER_SIZE");
  }
  std::string align_macro(size_t p) const {
    return "KILN_" + MOD_ + "_" + c_macro_name(pool_cnames_[p]) +
           (plan_.pools[p].is_workspace ? "_WORKSPACE_ALIGNMENT" : "_PARAMETER_ALIGNMENT");
  }
  std::string pool_array(size_t p) const {
    return "kiln_" + mod_ + "_" + pool_cnames_[p] + (plan_.pools[p].is_workspace ? "_workspace" : "_parameters");
  }
  std::string pool_var(size_t p) const {
    return (plan_.pools[p].is_workspace ? "kiln_ws_" : "kiln_params_") + pool_cnames_[p];
  }

  TemplateData io_list(const std::vector<IoTensor>& ts) const {
    TemplateList l;
    for (size_t i = 0; i < ts.size(); ++i) {
      const auto& t = ts[i];
      TemplateObject o;
      o["name"] = t.info.name;
      o["cname"] = t.info.c_name;
      o["macro"] = t.macro;
      o["index"] = std::to_string(i);
      o["size"] = std::to_string(t.info.size_bytes);
      o["alignment"] = std::to_string(tensor_alignment(t.info.dtype));
      o["dtype"] = dtype_name(t.info.dtype);
      o["dtype_enum"] = dtype_c_enum(t.info.dtype);
      o["ctype"] = dtype_c_type(t.info.dtype);
      o["shape"] = shape_str(t.info.shape);
      o["ndim"] = std::to_string(t.info.shape.size());
      o["dims"] = shape_dims(t.info.shape);
      o["has_shape"] = TemplateData(!t.info.shape.empty());
      l.push_back(o);
    }
    return l;
  }

  // --io-in-workspace: the program buffer of graph input/output `index`.
  const Buffer& io_buffer(BufferKind kind, size_t index) const {
    for (const auto& b : prog_.buffers)
      if (b.kind == kind && b.io_index == int(index)) return b;
    throw std::logic_error("emitter: no buffer for graph " + std::string(kind == BufferKind::Input ? "input " : "output ") +
                           std::to_string(index));
  }

  // Where each input/output lives with --io-in-workspace: the pool (as seen from
  // metadata.c, through the `workspaces` argument or the internal array) and offset.
  TemplateData mapped_io_list(const std::vector<IoTensor>& ts, BufferKind kind) const {
    TemplateList l;
    if (!opt_.io_in_workspace) return l;
    for (size_t i = 0; i < ts.size(); ++i) {
      const Buffer& b = io_buffer(kind, i);
      const int p = plan_.buffer_pool[size_t(b.id)];
      if (p < 0 || !plan_.pools[size_t(p)].is_workspace)
        throw std::logic_error("emitter: --io-in-workspace but " + in_quotes(b.name) + " is not in a workspace pool");
      const uint64_t off = plan_.buffer_offset[size_t(b.id)];
      const std::string base =
          plan_.pools[size_t(p)].is_user ? "workspaces->" + pool_cnames_[size_t(p)] : pool_array(size_t(p));
      TemplateObject o;
      o["name"] = ts[i].info.name;
      o["cname"] = ts[i].info.c_name;
      o["macro"] = ts[i].macro;
      o["index"] = std::to_string(i);
      o["ctype"] = dtype_c_type(ts[i].info.dtype);
      o["size"] = std::to_string(ts[i].info.size_bytes);
      o["pool"] = plan_.pools[size_t(p)].name;
      o["offset"] = std::to_string(off);
      o["addr"] = pool_offset_expr(base, off);
      l.push_back(o);
    }
    return l;
  }

  TemplateData common_data() const {
    TemplateData d;
    d.set("generator", kiln_identity());
    d.set("model_file", opt_.model_file);
    d.set("mod", mod_);
    d.set("MOD", MOD_);
    d.set("pad", std::string(std::string("int32_t kiln_" + mod_ + "_run(").size(), ' '));
    d.set("num_ops", std::to_string(prog_.ops.size()));
    d.set("num_inputs", std::to_string(inputs_.size()));
    d.set("num_outputs", std::to_string(outputs_.size()));
    d.set("has_inputs", TemplateData(!inputs_.empty()));
    d.set("inputs", io_list(inputs_));
    d.set("outputs", io_list(outputs_));
    d.set("io_in_workspace", TemplateData(opt_.io_in_workspace));
    d.set("mapped_inputs", mapped_io_list(inputs_, BufferKind::Input));
    d.set("mapped_outputs", mapped_io_list(outputs_, BufferKind::Output));
    TemplateList seqs;  // sequence inputs/outputs: a count macro each (docs/user-guide.md)
    CNameTable seq_in_names, seq_out_names;  // KILN_<MOD>_INPUT_<X>_COUNT: unique per kind
    for (const auto& si : g_.sequence_io) {
      TemplateObject o;
      o["name"] = si.name;
      o["macro"] = c_macro_name((si.is_input ? seq_in_names : seq_out_names).unique(si.name));
      o["kind"] = si.is_input ? "INPUT" : "OUTPUT";
      o["count"] = std::to_string(si.count);
      o["elements"] = si.count == 0 ? std::string("no members")
                                    : si.name + "_0 .. " + si.name + "_" + std::to_string(si.count - 1);
      seqs.push_back(o);
    }
    d.set("sequences", seqs);
    TemplateList ws, ps, user_ws, user_ps, internal_ws;
    int n_ws = 0, n_ps = 0, user_w = 0, user_p = 0;
    for (size_t p = 0; p < plan_.pools.size(); ++p) {
      const auto& ep = plan_.pools[p];
      TemplateObject o;
      o["name"] = ep.name;
      o["cname"] = pool_cnames_[p];
      o["size"] = std::to_string(ep.size_bytes);
      o["array_size"] = std::to_string(std::max<uint64_t>(ep.size_bytes, 1));
      o["alignment"] = std::to_string(ep.alignment);
      o["size_macro"] = size_macro(p);
      o["align_macro"] = align_macro(p);
      o["array"] = pool_array(p);
      o["kind"] = ep.is_user ? "user" : "internal";
      o["is_user"] = ep.is_user ? "1u" : "0u";
      if (ep.capacity) o["capacity"] = std::to_string(*ep.capacity);
      if (!ep.section.empty()) o["section"] = ep.section;
      o["section_macro"] = "KILN_" + MOD_ + "_" + c_macro_name(pool_cnames_[p]) + "_WORKSPACE_SECTION";
      if (ep.is_workspace) {
        ++n_ws;
        if (ep.is_user) {
          o["user_index"] = std::to_string(user_w++);
          user_ws.push_back(o);
        } else {
          const std::string image = state_image(p);
          if (!image.empty()) o["init"] = image;
          internal_ws.push_back(o);
        }
        ws.push_back(o);
      } else {
        ++n_ps;
        if (ep.is_user) {
          o["user_index"] = std::to_string(user_p++);
          user_ps.push_back(o);
        }
        ps.push_back(o);
      }
    }
    d.set("workspace_pools", ws);
    d.set("parameter_pools", ps);
    d.set("user_workspace_pools", user_ws);
    d.set("user_parameter_pools", user_ps);
    d.set("internal_workspace_pools", internal_ws);
    d.set("has_user_workspaces", TemplateData(user_w > 0));
    d.set("num_workspace_pools", std::to_string(n_ws));
    d.set("num_parameter_pools", std::to_string(n_ps));
    state_data(&d);
    return d;
  }

  // The address of byte `offset` of buffer `b`, as a `uint8_t*` expression.
  std::string byte_address(int b, uint64_t offset) const {
    const Buffer& buf = prog_.buffers[size_t(b)];
    uint64_t off = offset;
    std::string base;
    if (buf.kind == BufferKind::Input && plan_.buffer_pool[size_t(b)] < 0) {
      base = "(const uint8_t*)inputs->" + inputs_[size_t(buf.io_index)].info.c_name;
    } else if (buf.kind == BufferKind::Output && plan_.buffer_pool[size_t(b)] < 0) {
      base = "(uint8_t*)outputs->" + outputs_[size_t(buf.io_index)].info.c_name;
    } else {
      int p = plan_.buffer_pool[size_t(b)];
      if (p < 0) throw std::logic_error("emitter: buffer " + in_quotes(buf.name) + " has no pool");
      base = pool_var(size_t(p));
      off += plan_.buffer_offset[size_t(b)];
    }
    return pool_offset_expr(base, off);
  }

  std::string typed(const BufferRef& r, DType t, bool is_const) const {
    if (r.buffer < 0) return "NULL";
    std::string ct = dtype_c_type(t);
    if (ct.empty()) ct = "uint8_t";
    return std::string("(") + (is_const ? "const " : "") + ct + "*)(" + byte_address(r.buffer, r.offset) + ")";
  }

  // Replaces $in0, $out0, $scratch0, $params, $inptrs, $outptrs in a call text.
  std::string substitute(const std::string& text, const ScheduledOp& op, size_t step, TemplateList* arrays,
                         const std::string& params_name) const {
    std::string out;
    for (size_t i = 0; i < text.size();) {
      if (text[i] != '$') {
        out += text[i++];
        continue;
      }
      size_t j = i + 1;
      while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
      std::string word = text.substr(i + 1, j - i - 1);
      size_t k = j;
      while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k;
      std::string num = text.substr(j, k - j);
      auto index = [&](size_t n) -> size_t {
        if (num.empty()) throw std::logic_error("lowering of " + op.label + ": '$" + word + "' needs an index");
        size_t idx = std::stoul(num);
        if (idx >= n) throw std::logic_error("lowering of " + op.label + ": '$" + word + num + "' out of range");
        return idx;
      };
      if (word == "in") {
        size_t x = index(op.inputs.size());
        out += typed(op.inputs[x], op.input_dtypes[x], true);
      } else if (word == "out") {
        size_t x = index(op.outputs.size());
        out += typed(op.outputs[x], op.output_dtypes[x], false);
      } else if (word == "const") {
        size_t x = index(op.constants.size());
        out += typed(op.constants[x], op.call.constants[x]->dtype(), true);
      } else if (word == "scratch") {
        size_t x = index(op.scratch.size());
        out += "(void*)(" + byte_address(op.scratch[x].buffer, op.scratch[x].offset) + ")";
      } else if (word == "params" && num.empty()) {
        if (params_name.empty()) throw std::logic_error("lowering of " + op.label + " uses $params without a struct");
        out += params_name;
      } else if ((word == "inptrs" || word == "outptrs") && num.empty()) {
        // The array itself is declared by the template (kiln_in / kiln_out), one
        // element per input or output: NULL for an omitted one, else its address.
        const bool in = word == "inptrs";
        const auto& refs = in ? op.inputs : op.outputs;
        TemplateList ptrs;
        for (size_t x = 0; x < refs.size(); ++x) {
          const bool null = refs[x].buffer < 0;
          ptrs.push_back(TemplateObject{{"first", x == 0},
                                        {"null", null},
                                        {"addr", null ? std::string() : byte_address(refs[x].buffer, refs[x].offset)}});
        }
        arrays->push_back(TemplateObject{{"is_in", in}, {"ptrs", ptrs}, {"no_ptrs", refs.empty()}});
        out += in ? "kiln_in" : "kiln_out";
      } else {
        throw std::logic_error("lowering of " + op.label + ": unknown placeholder '$" + word + num + "'");
      }
      i = k;
    }
    (void)step;
    return out;
  }

  // The data of operators.c. The template holds all of its C text; this gives it
  // names, offsets and address expressions: the pools' base pointers and the
  // caller pointers to check, then one object per scheduled op (op_data).
  TemplateData operators_data(TemplateData d) const {
    d.set("checks", pointer_checks());
    d.set("pools", pool_list());
    d.set("io_checks", io_places());
    d.set("conditions", template_partial("conditions.mustache"));
    d.set("poison_call", template_partial("poison_call.mustache"));
    const std::vector<TemplateList> dead = dead_buffer_lists();
    TemplateList ops;
    std::vector<size_t> open_loops;  // Begin steps of the loop regions open at this op
    for (size_t i = 0; i < prog_.ops.size(); ++i) ops.push_back(op_data(i, dead[i], &open_loops));
    d.set("ops", ops);
    return d;
  }

  // The caller pointers checked (kiln_check_ptr) before anything is written: user
  // pools (a user parameter pool's NULL selects the compiled-in array), then the
  // inputs and outputs unless they live in the pools (--io-in-workspace).
  TemplateList pointer_checks() const {
    TemplateList l;
    auto check = [&](const char* kind, const std::string& name, const std::string& array, uint32_t align) {
      TemplateObject o{{"chk_ws", false}, {"chk_param", false}, {"chk_in", false}, {"chk_out", false}};
      o[kind] = true;
      o["chk_name"] = name;
      o["chk_array"] = array;
      o["chk_align"] = std::to_string(align);
      l.push_back(o);
    };
    for (size_t p = 0; p < plan_.pools.size(); ++p)
      if (plan_.pools[p].is_user)
        check(plan_.pools[p].is_workspace ? "chk_ws" : "chk_param", pool_cnames_[p], pool_array(p),
              plan_.pools[p].alignment);
    if (!opt_.io_in_workspace) {
      for (const auto& t : inputs_) check("chk_in", t.info.c_name, "", tensor_alignment(t.info.dtype));
      for (const auto& t : outputs_) check("chk_out", t.info.c_name, "", tensor_alignment(t.info.dtype));
    }
    return l;
  }

  // Per pool: the variable operators.c addresses it through and where its bytes
  // come from (the caller's pointer for a user pool, else the module's array).
  TemplateList pool_list() const {
    TemplateList pools;
    for (size_t p = 0; p < plan_.pools.size(); ++p) {
      const auto& ep = plan_.pools[p];
      pools.push_back(TemplateObject{{"pool_var", pool_var(p)},
                                     {"pool_cname", pool_cnames_[p]},
                                     {"pool_array", pool_array(p)},
                                     {"is_ws", ep.is_workspace},
                                     {"ws_user", ep.is_workspace && ep.is_user},
                                     {"param_user", !ep.is_workspace && ep.is_user}});
    }
    return pools;
  }

  // --io-in-workspace: where each input and output lives, as operators.c
  // addresses it; the structs are optional, but pointers other than these would
  // be silently ignored, so the template makes them an error.
  TemplateList io_places() const {
    TemplateList l;
    if (!opt_.io_in_workspace) return l;
    for (size_t i = 0; i < inputs_.size(); ++i)
      l.push_back(TemplateObject{{"is_input", true},
                                 {"cname", inputs_[i].info.c_name},
                                 {"addr", byte_address(io_buffer(BufferKind::Input, i).id, 0)}});
    for (size_t i = 0; i < outputs_.size(); ++i)
      l.push_back(TemplateObject{{"is_input", false},
                                 {"cname", outputs_[i].info.c_name},
                                 {"addr", byte_address(io_buffer(BufferKind::Output, i).id, 0)}});
    return l;
  }

  // templates/conditions.mustache's data: `(*(byte) != 0) && (*(byte) == 0) ...`,
  // one condition byte's address and side (true: != 0) each.
  TemplateList condition_list(const std::vector<std::pair<BufferRef, bool>>& cs) const {
    TemplateList l;
    for (size_t k = 0; k < cs.size(); ++k)
      l.push_back(TemplateObject{
          {"first", k == 0}, {"addr", byte_address(cs[k].first.buffer, cs[k].first.offset)}, {"when", cs[k].second}});
    return l;
  }

  // Per step, the buffers whose live range ends there, to poison (--poison-dead),
  // as data for templates/poison_call.mustache.
  std::vector<TemplateList> dead_buffer_lists() const {
    std::vector<std::vector<int>> dies(prog_.ops.size());
    for (const auto& b : prog_.buffers) {
      if (b.kind != BufferKind::Activation && b.kind != BufferKind::Scratch) continue;
      if (b.size_bytes == 0 || b.last <= 0 || b.last > int64_t(prog_.ops.size())) continue;
      dies[size_t(b.last - 1)].push_back(b.id);
    }
    // A buffer of one side of a run-time If may share bytes with the other side's
    // (planner exclusivity): it is poisoned only in runs of its side, and before
    // any condition dying at the same step (more guards first: inner Ifs' buffers
    // before an inner condition, itself guarded by the outer one).
    std::map<int, BufferRef> group_cond;
    for (const auto& op : prog_.ops)
      for (const auto& gd : op.guards) group_cond.emplace(gd.group, gd.cond);
    std::vector<TemplateList> lists(dies.size());
    for (size_t i = 0; i < dies.size(); ++i) {
      std::stable_sort(dies[i].begin(), dies[i].end(), [&](int a, int b) {
        return prog_.buffers[size_t(a)].only_when.size() > prog_.buffers[size_t(b)].only_when.size();
      });
      for (int b : dies[i]) {
        std::vector<std::pair<BufferRef, bool>> when;
        for (const auto& [group, side] : prog_.buffers[size_t(b)].only_when) {
          auto c = group_cond.find(group);
          if (c != group_cond.end()) when.emplace_back(c->second, side);
        }
        lists[i].push_back(TemplateObject{{"conds", condition_list(when)},
                                          {"has_when", !when.empty()},
                                          {"addr", byte_address(b, 0)},
                                          {"size", std::to_string(prog_.buffers[size_t(b)].size_bytes)}});
      }
    }
    return lists;
  }

  // One scheduled op: a kernel call, or a loop region's Begin or End.
  // Inside a loop region the step's lines are indented 4 columns per open loop.
  TemplateObject op_data(size_t i, const TemplateList& dead, std::vector<size_t>* open_loops) const {
    const auto& op = prog_.ops[i];
    TemplateObject o;
    o["step"] = std::to_string(i);
    std::string label = op.label;
    for (auto& c : label)
      if (c == '*' || c == '/') c = '_';  // keep comments well-formed
    o["label"] = label;
    std::string params_name;
    if (!op.call.params_type.empty()) {
      params_name = "kiln_" + mod_ + "_p" + std::to_string(i);
      o["params_type"] = op.call.params_type;
      o["params_init"] = op.call.params_init;
    }
    // One side of a run-time If: the op runs only when its condition(s) hold.
    std::vector<std::pair<BufferRef, bool>> guard;
    for (const auto& gd : op.guards) guard.emplace_back(gd.cond, gd.when);
    o["conds"] = condition_list(guard);
    o["guarded"] = !guard.empty();
    o["ind"] = indent(open_loops->size());
    o["is_loop"] = op.loop != LoopMark::None;
    o["loop_begin"] = false;
    o["loop_end"] = false;
    o["poison"] = TemplateList{};
    if (op.loop == LoopMark::Begin) {
      o["loop_begin"] = loop_begin_data(i, dead, open_loops);
    } else if (op.loop == LoopMark::End) {
      o["loop_end"] = loop_end_data(i, dead, open_loops);
    } else {
      TemplateList arrays;  // pointer arrays ($inptrs, $outptrs) declared in one block with the call
      o["call"] = substitute(op.call.call, op, i, &arrays, params_name);
      o["has_arrays"] = !arrays.empty();
      o["arrays"] = arrays;
      o["poison"] = dead;
      o["gind"] = indent(open_loops->size()) + (guard.empty() ? "" : "  ");  // the call, inside its guard's `if`
    }
    return o;
  }

  static std::string indent(size_t open_loops) { return std::string(4 * open_loops, ' '); }

  // A copy between two buffers in a loop region's code; none when both are the
  // same bytes or there are none.
  static void add_copy(TemplateList* copies, const std::string& dst, const std::string& src, uint64_t n) {
    if (n == 0 || dst == src) return;
    copies->push_back(TemplateObject{{"dst", dst}, {"src", src}, {"bytes", std::to_string(n)}});
  }

  static TemplateData text_or_false(bool has, const std::string& text) {
    return has ? TemplateData(text) : TemplateData(false);
  }

  std::string ref_address(const BufferRef& r) const { return byte_address(r.buffer, r.offset); }

  // A loop region's Begin at step `i` (ir/loop_region.h), which opens the loop:
  // the trip count and condition, the initial values copied into the loop state,
  // the bound checked per iteration, where the iteration number and cond_in go.
  // The body between Begin and End is emitted as usual, so no kernel knows it
  // runs in a loop.
  TemplateObject loop_begin_data(size_t i, const TemplateList& dead, std::vector<size_t>* open) const {
    const ScheduledOp& op = prog_.ops[i];
    const Node& n = *op.node;
    const Node* end = nullptr;
    for (const Value* v : n.outputs)
      for (const Node* u : v->users)
        if (is_loop_end(*u)) end = u;
    if (!end) throw std::logic_error(op.label + ": its loop region has no end");
    TemplateObject o;
    o["id"] = std::to_string(i);
    o["lind"] = indent(open->size());  // a Begin opens at its step's level
    open->push_back(i);
    const Value* m = n.input(0);
    std::optional<int64_t> static_trips;
    if (m && m->is_constant()) static_trips = std::max<int64_t>(0, m->constant->as_int64(0));
    o["trips_static"] = text_or_false(static_trips.has_value(), static_trips ? std::to_string(*static_trips) : "");
    o["trips_addr"] = text_or_false(m && !static_trips, m && !static_trips ? ref_address(op.inputs[0]) : "");
    o["trips_unbounded"] = !m;
    const Value* cond = n.input(1);
    const bool cond_runtime = cond && !cond->is_constant();
    o["go_addr"] = text_or_false(cond_runtime, cond_runtime ? ref_address(op.inputs[1]) : "");
    o["go_const"] = cond && cond->is_constant() && !cond->constant->data()[0] ? "0" : "1";
    TemplateList copies;
    for (size_t k = 2; k < n.inputs.size(); ++k)
      add_copy(&copies, ref_address(op.outputs[k]), ref_address(op.inputs[k]),
               n.outputs[k] ? n.outputs[k]->size_bytes() : 0);
    o["copies_in"] = copies;
    o["dead"] = dead;
    o["has_dead"] = !dead.empty();
    // The number of iterations a run may make: the scan outputs' rows, else Kiln's limit.
    const bool check_length = end->attr_int("check_length", 0) != 0;
    const int64_t bound = check_length ? end->attr_int("scan_length", 0) : kMaxLoopIterations;
    o["check_bound"] = !static_trips || *static_trips > bound;
    o["check_length"] = check_length;
    o["bound"] = std::to_string(bound);
    const bool has_iter = op.outputs[0].buffer >= 0;
    o["iter_addr"] = text_or_false(has_iter, has_iter ? ref_address(op.outputs[0]) : "");
    const bool has_cond_in = op.outputs[1].buffer >= 0 && n.outputs[1] && n.outputs[1]->size_bytes() > 0;
    o["cond_in_addr"] = text_or_false(has_cond_in, has_cond_in ? ref_address(op.outputs[1]) : "");
    o["loop_label"] = op.label;
    return o;
  }

  // A loop region's End at step `i`, which closes the innermost open loop: the
  // condition for the next iteration, the scan rows (a row may be a view of the
  // loop state, so they go first), the next state, the check of the scan
  // outputs' rows after the loop and the final values copied to the outputs.
  TemplateObject loop_end_data(size_t i, const TemplateList& dead, std::vector<size_t>* open) const {
    const ScheduledOp& op = prog_.ops[i];
    const Node& n = *op.node;
    if (open->empty()) throw std::logic_error(op.label + " closes no loop region");
    TemplateObject o;
    o["id"] = std::to_string(open->back());
    open->pop_back();
    o["lind"] = indent(open->size());  // an End closes at its Begin's level
    const size_t carried = size_t(n.attr_int("carried", 0));
    const size_t cond_at = 2 + carried;
    const Value* cond_out = n.input(cond_at);
    const bool cond_constant = cond_out && cond_out->is_constant();
    o["go_stop"] = cond_constant && !cond_out->constant->data()[0];
    o["go_addr"] = text_or_false(!cond_constant, cond_constant ? "" : ref_address(op.inputs[cond_at]));
    TemplateList rows, next, outs;
    for (size_t k = carried; k < n.outputs.size(); ++k) {
      const BufferRef& dst = op.outputs[k];
      const Value* row = n.input(cond_at + 1 + k);
      if (dst.buffer < 0 || !row || row->size_bytes() == 0) continue;
      rows.push_back(TemplateObject{{"dst", ref_address(dst)},
                                    {"src", ref_address(op.inputs[cond_at + 1 + k])},
                                    {"bytes", std::to_string(row->size_bytes())}});
    }
    auto size_of = [](const Value* v) { return v ? v->size_bytes() : 0; };
    for (size_t k = 0; k < carried; ++k)
      add_copy(&next, ref_address(op.inputs[2 + k]), ref_address(op.inputs[cond_at + 1 + k]), size_of(n.inputs[2 + k]));
    for (size_t k = 0; k < carried; ++k)
      if (op.outputs[k].buffer >= 0)
        add_copy(&outs, ref_address(op.outputs[k]), ref_address(op.inputs[2 + k]), size_of(n.inputs[2 + k]));
    o["scan_rows"] = rows;
    o["copies_next"] = next;
    o["copies_out"] = outs;
    o["check_length"] = n.attr_int("check_length", 0) != 0;
    o["scan_length"] = std::to_string(n.attr_int("scan_length", 0));
    o["dead"] = dead;
    o["has_dead"] = !dead.empty();
    return o;
  }

  std::string write_parameter_file(int p, TemplateData d) {
    const auto& ep = plan_.pools[size_t(p)];
    // The pool's constants in address order. They are streamed into the C array one
    // at a time (gaps as zeros), so the host never holds a whole-pool image: peak
    // memory is the model plus the largest single constant.
    std::vector<std::pair<uint64_t, const Buffer*>> placed;
    for (const auto& b : prog_.buffers) {
      if (b.kind != BufferKind::Constant || plan_.buffer_pool[size_t(b.id)] != p) continue;
      // A zero-byte constant (the empty shape of a Reshape to rank 0, the axes of a
      // SplitToSequence element's Squeeze) holds no bytes: the planner may put it at
      // any offset, inside another constant too (planner/verify_plan.cpp skips it),
      // so it has nothing to write and no place in the address order.
      if (b.size_bytes == 0) continue;
      uint64_t off = plan_.buffer_offset[size_t(b.id)];
      if (off + b.size_bytes > ep.size_bytes) throw std::logic_error("emitter: constant " + in_quotes(b.name) + " beyond pool end");
      placed.emplace_back(off, &b);
    }
    std::sort(placed.begin(), placed.end(),
              [](const auto& a, const auto& b) { return a.first < b.first || (a.first == b.first && a.second->id < b.second->id); });
    const int count = int(placed.size());
    d.set("name", ep.name);
    d.set("size", std::to_string(ep.size_bytes));
    d.set("num_constants", std::to_string(count));
    d.set("array", pool_array(size_t(p)));
    d.set("array_size", std::to_string(std::max<uint64_t>(ep.size_bytes, 1)));
    d.set("alignment", std::to_string(ep.alignment));
    if (!ep.section.empty()) d.set("section", ep.section);
    std::string text = render_template("parameters.c.mustache", d);
    const std::string marker = "@@KILN_DATA@@";
    size_t at = text.find(marker);
    if (at == std::string::npos) throw CompileError("template parameters.c.mustache lacks @@KILN_DATA@@");

    std::string file = "parameters_" + pool_cnames_[size_t(p)] + ".c";
    std::ofstream file_out;
    std::ostringstream kept;  // nothing written: the text goes to CompiledModule::files
    if (!dir_.empty()) {
      file_out.open(dir_ / file, std::ios::binary);
      if (!file_out) throw CompileError("cannot write " + in_quotes((dir_ / file).string()));
    }
    std::ostream& out = dir_.empty() ? static_cast<std::ostream&>(kept) : file_out;
    out << text.substr(0, at);
    HexArrayWriter hex(out);
    std::vector<uint8_t> bytes;
    uint64_t pos = 0;
    for (const auto& [off, b] : placed) {
      if (off < pos) throw std::logic_error("emitter: constants " + in_quotes(b->name) + " overlaps the one before it");
      hex.zeros(off - pos);
      bytes.resize(b->size_bytes);
      // write_bytes rounds a folded (wide or transformed) constant straight into
      // the buffer; data() would cache a second rounded copy of every such constant.
      if (b->size_bytes) b->constant->write_bytes(bytes.data());
      hex.bytes(bytes.data(), bytes.size());
      pos = off + b->size_bytes;
    }
    hex.zeros(std::max<uint64_t>(ep.size_bytes, 1) - pos);
    hex.finish();
    out << text.substr(at + marker.size() + 1);
    if (!out) throw CompileError("error while writing " + in_quotes(file));
    if (dir_.empty()) files_[file] = kept.str();
    return file;
  }

  void copy_crt() const {
    if (dir_.empty()) return;
    fs::path src = kiln_home() / "crt";
    fs::path dst = dir_ / "crt";
    std::error_code ec;
    fs::remove_all(dst, ec);
    for (const char* sub : {"include", "src"}) {
      fs::create_directories(dst / sub);
      fs::copy(src / sub, dst / sub, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
      if (ec) throw CompileError("cannot copy the runtime from " + in_quotes((src / sub).string()) + ": " + ec.message());
    }
  }

  const Graph& g_;
  const BufferizedProgram& prog_;
  const EmitPlan& plan_;
  EmitOptions opt_;
  std::string mod_, MOD_;
  std::vector<IoTensor> inputs_, outputs_;
  std::vector<std::string> pool_cnames_;
  fs::path dir_;  // where files are written; empty: nowhere
  std::map<std::string, std::string> files_;  // the files' text when dir_ is empty
};

}  // namespace

std::string pool_offset_expr(const std::string& pool_var, uint64_t offset) {
  if (offset == 0) return pool_var;
  return pool_var + " + " + std::to_string(offset) + "u";
}

CompiledModule emit_module(const Graph& graph, const BufferizedProgram& program, const EmitPlan& plan,
                           const EmitOptions& options) {
  return Emitter(graph, program, plan, options).run();
}

}  // namespace kiln
