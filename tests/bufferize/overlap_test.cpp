// Partial reuse (bufferize/overlap.h), the residual fusion and the scheduler's
// graph bridge on hand-built graphs: outputs placed across a dying input only at
// offsets the kernel allows, the buffer grown only when that saves bytes, the
// independent check catching a placement the kernel does not allow; patch-based
// inverted residual blocks taken where they lower the peak and only there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "../support/graph_builder.h"
#include "bufferize/bufferize.h"
#include "bufferize/overlap.h"
#include "schedule/graph_schedule.h"
#include "schedule/overlap_choice.h"
#include "schedule/patch_fusion.h"
#include "schedule/residual_fusion.h"

namespace kiln {
namespace {

using G = test_support::GraphBuilder;

// Conv 'name' of `in` into `out`, 3x3 with one pixel of padding: groups = in
// channels (depthwise) or 1 (4 -> 4 channels).
Node* conv3x3(G& b, const std::string& name, Value* in, Value* out, bool depthwise = false) {
  const int64_t c = in->shape[1];
  Node* n = b.op("Conv", name, {in, b.cst("w_" + name, {c, depthwise ? 1 : c, 3, 3})}, {out});
  n->attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  n->attrs["kernel_shape"] = std::vector<int64_t>{3, 3};
  if (depthwise) n->attrs["group"] = c;
  return n;
}

TEST(BufferizeOverlap, ChoosesInsideTheBufferWhenItFits) {
  // Output of 64 B over an input of 256 B at offset 0: m = 0, no growth.
  OverlapChoice c = choose_overlap(256, 0, 64, 16, -100, 0, 16, true);
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.out_offset, 0u);
  EXPECT_EQ(c.shift, 0u);
  EXPECT_EQ(c.new_size, 256u);
}

TEST(BufferizeOverlap, GrowsByWholeGranulesAndOnlyWhenItSaves) {
  // 1x1 convolution 2 -> 4 channels of 64-byte planes: input 128 B, output 256 B,
  // allowed at m * 64 for m in [-4, 2]. Best: one 256-byte buffer, input in it.
  OverlapChoice c = choose_overlap(128, 0, 256, 64, -4, 2, 16, true);
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.new_size, 256u);
  EXPECT_EQ(c.out_offset, 0u);
  EXPECT_EQ(c.shift, 0u);
  // Without growth it cannot overlap.
  EXPECT_FALSE(choose_overlap(128, 0, 256, 64, -4, 2, 16, false).ok);
  // Only "below the input" allowed: the buffer grows downwards (everything moves up).
  c = choose_overlap(128, 0, 256, 64, -4, -2, 16, true);
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.new_size, 256u);
  EXPECT_EQ(c.shift, 128u);
  EXPECT_EQ(c.out_offset, 0u);
  // Allowed only where the two do not share a byte: no saving, no overlap.
  EXPECT_FALSE(choose_overlap(128, 0, 256, 64, -8, -4, 16, true).ok);
  // An offset off the buffer alignment is never chosen.
  c = choose_overlap(128, 0, 64, 24, -8, 0, 16, true);
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.out_offset % 16, 0u);
}

// choose_overlap as it was first written: every m of the range in turn.
OverlapChoice choose_overlap_by_trying_every_m(uint64_t buffer_size, uint64_t in_offset, uint64_t out_size,
                                               int64_t granule, int64_t min_m, int64_t max_m, uint32_t align,
                                               bool may_grow) {
  OverlapChoice best;
  const int64_t S = int64_t(buffer_size), r = int64_t(in_offset), out = int64_t(out_size), A = std::max<int64_t>(align, 1);
  int64_t best_size = INT64_MAX, best_abs = INT64_MAX;
  for (int64_t m = min_m; m <= max_m; ++m) {
    const int64_t o = r + m * granule;
    if (((o % A) + A) % A != 0) continue;
    const int64_t lo = std::min<int64_t>(0, o), hi = std::max<int64_t>(S, o + out);
    const int64_t size = hi - lo;
    if (size != S && !may_grow) continue;
    if (size >= S + out) continue;
    if (size < best_size || (size == best_size && std::llabs(m) < best_abs)) {
      best_size = size, best_abs = std::llabs(m);
      best.ok = true;
      best.shift = uint64_t(-lo);
      best.out_offset = uint64_t(o - lo);
      best.new_size = uint64_t(size);
    }
  }
  return best;
}

TEST(BufferizeOverlap, ChoiceWithoutTryingEveryOffsetIsTheSame) {
  // choose_overlap looks only at the aligned offsets next to where the grown size
  // changes slope; it must pick what trying every allowed offset picks.
  std::mt19937_64 rng(16);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int chosen = 0, grown = 0;
  for (int t = 0; t < 200000; ++t) {
    const uint32_t align = uint32_t(std::vector<int64_t>{1, 2, 4, 8, 16, 32}[size_t(pick(0, 5))]);
    const int64_t granule = pick(0, 3) == 0 ? pick(1, 40) : 4 * pick(1, 64);
    const uint64_t size = uint64_t(pick(1, 64) * (pick(0, 1) ? 4 : 1) * pick(1, 16));
    const uint64_t in_offset = uint64_t(pick(0, 3) ? 0 : pick(0, int64_t(size)));
    const uint64_t out = uint64_t(pick(1, 2048));
    const int64_t min_m = pick(-300, 5), max_m = min_m + pick(0, 400);
    const bool grow = pick(0, 1);
    const OverlapChoice a = choose_overlap(size, in_offset, out, granule, min_m, max_m, align, grow);
    const OverlapChoice b = choose_overlap_by_trying_every_m(size, in_offset, out, granule, min_m, max_m, align, grow);
    ASSERT_EQ(a.ok, b.ok) << t;
    if (!a.ok) continue;
    ASSERT_EQ(a.new_size, b.new_size) << t;
    ASSERT_EQ(a.shift, b.shift) << t;
    ASSERT_EQ(a.out_offset, b.out_offset) << t;
    ++chosen;
    grown += a.new_size != size;
  }
  // The cases reach both kinds of choice often.
  EXPECT_GT(chosen, 20000);
  EXPECT_GT(grown, 5000);
}

// x -> Conv depthwise 3x3 -> Relu -> Conv 1x1 (4 -> 8) -> y
struct Chain {
  G b;
  Value *x, *d, *r, *y;
  Chain() {
    x = b.input("x", {1, 4, 32, 32});
    Value* wp = b.cst("wp", {8, 4, 1, 1});
    Value* x1 = b.val("x1", {1, 4, 32, 32});
    d = b.val("d", {1, 4, 32, 32});
    r = b.val("r", {1, 4, 32, 32});
    y = b.val("y", {1, 8, 32, 32});
    Value* z = b.val("z", {1, 8, 32, 32});
    b.op("Relu", "pre", {x}, {x1});
    conv3x3(b, "dw", x1, d, /*depthwise=*/true);
    b.op("Relu", "relu", {d}, {r});
    b.op("Conv", "pw", {r, wp}, {y});
    b.op("Relu", "post", {y}, {z});
    b.output(z);
  }
};

TEST(BufferizeOverlap, DepthwiseAndPointwiseShareOneBuffer) {
  Chain c;
  BufferizedProgram p = bufferize(c.b.g, lower_graph(c.b.g, LoweringTarget{}));
  EXPECT_EQ(check_overlaps(p), "");
  ASSERT_EQ(p.overlaps.size(), 2u) << "depthwise over its input, 1x1 over the depthwise result";
  // All activations in one buffer of the larger (output) size: 8 planes of 32x32 floats.
  uint64_t activation_bytes = 0;
  for (const Buffer& b : p.buffers)
    if (b.kind == BufferKind::Activation) activation_bytes += b.size_bytes;
  EXPECT_EQ(activation_bytes, 8u * 1024 * 4);
  // Off: separate buffers again.
  BufferizeOptions off;
  off.overlap = false;
  BufferizedProgram q = bufferize(c.b.g, lower_graph(c.b.g, LoweringTarget{}), off);
  EXPECT_TRUE(q.overlaps.empty());
  EXPECT_GT(live_peak(q), live_peak(p));
}

TEST(BufferizeOverlap, CheckRejectsAnOverlapTheKernelDoesNotAllow) {
  Chain c;
  BufferizedProgram p = bufferize(c.b.g, lower_graph(c.b.g, LoweringTarget{}));
  ASSERT_EQ(check_overlaps(p), "");
  // Move the 1x1 convolution's output a quarter plane (1024 B) off: not a whole plane.
  for (ScheduledOp& op : p.ops)
    if (op.node && op.node->name == "pw") {
      ASSERT_EQ(op.outputs[0].buffer, op.inputs[0].buffer);
      op.outputs[0].offset += 1024;
    }
  EXPECT_NE(check_overlaps(p).find("Conv 'pw'"), std::string::npos);
}

TEST(BufferizeOverlap, NoOverlapWhileTheInputIsStillNeeded) {
  Chain c;
  // A second reader of r after the 1x1 convolution keeps r alive.
  Value* extra = c.b.val("extra", {1, 4, 32, 32});
  c.b.op("Relu", "later", {c.r}, {extra});
  c.b.output(extra);
  BufferizedProgram p = bufferize(c.b.g, lower_graph(c.b.g, LoweringTarget{}));
  EXPECT_EQ(check_overlaps(p), "");
  for (size_t i = 0; i < p.overlaps.size(); ++i) EXPECT_NE(p.overlap_nodes[i]->name, "pw");
}

TEST(BufferizeOverlap, ResidualAddFusesIntoTheConvolution) {
  G b;
  Value* x = b.input("x", {1, 4, 8, 8});
  Value* h = b.val("h", {1, 4, 8, 8});
  Value* m = b.val("m", {1, 4, 8, 8});
  Value* c = b.val("c", {1, 4, 8, 8});
  Value* s = b.val("s", {1, 4, 8, 8});
  Value* y = b.val("y", {1, 4, 8, 8});
  b.op("Relu", "r0", {x}, {h});
  b.op("Relu", "mid", {h}, {m});  // h is still needed by the Add: m gets a buffer of its own
  conv3x3(b, "conv", m, c);
  b.op("Add", "add", {h, c}, {s});
  b.op("Relu", "r1", {s}, {y});
  b.output(y);
  EXPECT_EQ(fuse_residual_adds(b.g), 1u);
  ASSERT_EQ(b.g.nodes.size(), 4u);
  const Node* f = std::next(b.g.nodes.begin(), 2)->get();
  EXPECT_EQ(f->op_type, "KilnConvAdd");
  EXPECT_EQ(f->outputs[0], s);
  EXPECT_EQ(f->input(3), h);
  // The fused op writes over the residual (its last user): two activation buffers
  // (h, then s over it; m), not three.
  BufferizedProgram p = bufferize(b.g, lower_graph(b.g, LoweringTarget{}));
  EXPECT_EQ(check_overlaps(p), "");
  int activations = 0;
  for (const Buffer& buf : p.buffers) activations += buf.kind == BufferKind::Activation;
  EXPECT_EQ(activations, 2);
}

TEST(BufferizeOverlap, ResidualThatIsTheConvolutionsInputIsNotFused) {
  // y = x + Conv(x): the fused kernel would overwrite its own input.
  G b;
  Value* x = b.input("x", {1, 4, 8, 8});
  Value* h = b.val("h", {1, 4, 8, 8});
  Value* c = b.val("c", {1, 4, 8, 8});
  Value* y = b.val("y", {1, 4, 8, 8});
  b.op("Relu", "r0", {x}, {h});
  conv3x3(b, "conv", h, c);
  b.op("Add", "add", {h, c}, {y});
  b.output(y);
  EXPECT_EQ(fuse_residual_adds(b.g), 0u);
}

TEST(BufferizeOverlap, ChoosingDropsAnOverlapThatKeepsABigBufferAlive) {
  // x -> 1x1 (4 -> 32 channels, input dies: overlap grows x's buffer) -> 1x1 (32 -> 1)
  // placed inside the big buffer; that small result then lives on beside another big
  // tensor: keeping it in the big buffer costs more than it saves.
  G b;
  Value* x = b.input("x", {1, 4, 8, 8});
  Value* x0 = b.val("x0", {1, 4, 8, 8});
  Value* e = b.val("e", {1, 32, 8, 8});
  Value* p1 = b.val("p1", {1, 1, 8, 8});
  Value* e2 = b.val("e2", {1, 32, 8, 8});
  Value* p2 = b.val("p2", {1, 1, 8, 8});
  Value* y = b.val("y", {1, 1, 8, 8});
  b.op("Relu", "r", {x}, {x0});
  b.op("Conv", "expand", {x0, b.cst("w1", {32, 4, 1, 1})}, {e});
  b.op("Conv", "project", {e, b.cst("w2", {1, 32, 1, 1})}, {p1});
  b.op("Conv", "expand2", {p1, b.cst("w3", {32, 1, 1, 1})}, {e2});
  b.op("Conv", "project2", {e2, b.cst("w4", {1, 32, 1, 1})}, {p2});
  b.op("Add", "add", {p1, p2}, {y});
  b.output(y);
  BufferizedProgram all = bufferize(b.g, lower_graph(b.g, LoweringTarget{}));
  BufferizedProgram chosen = bufferize_choosing_overlaps(b.g, lower_graph(b.g, LoweringTarget{}), {});
  EXPECT_EQ(check_overlaps(chosen), "");
  EXPECT_LT(live_peak(chosen), live_peak(all));
}


// An inverted residual block of `in` (c_in channels): 1x1 expand to `ce` channels,
// Clip(0, 6), depthwise 3x3 (pads 1, `stride`), Clip(0, 6), 1x1 project to c_out.
Value* inverted_residual(G& b, const std::string& p, Value* in, int64_t ce, int64_t c_out, int64_t stride) {
  const int64_t c_in = in->shape[1], h = in->shape[2], w = in->shape[3];
  const int64_t ho = (h + 2 - 3) / stride + 1, wo = (w + 2 - 3) / stride + 1;
  auto scalar = [&](const std::string& n, float v) {
    Value* c = b.g.add_value(n, DType::Float32, {});
    c->constant = Constant::from_floats({}, {v});
    return c;
  };
  Value* e = b.val(p + "_e", {1, ce, h, w});
  Value* e6 = b.val(p + "_e6", {1, ce, h, w});
  Value* d = b.val(p + "_d", {1, ce, ho, wo});
  Value* d6 = b.val(p + "_d6", {1, ce, ho, wo});
  Value* y = b.val(p + "_y", {1, c_out, ho, wo});
  b.op("Conv", p + "_expand", {in, b.cst(p + "_we", {ce, c_in, 1, 1})}, {e});
  b.op("Clip", p + "_clip1", {e, scalar(p + "_lo1", 0.f), scalar(p + "_hi1", 6.f)}, {e6});
  Node* dw = b.op("Conv", p + "_dw", {e6, b.cst(p + "_wd", {ce, 1, 3, 3})}, {d});
  dw->attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  dw->attrs["kernel_shape"] = std::vector<int64_t>{3, 3};
  dw->attrs["strides"] = std::vector<int64_t>{stride, stride};
  dw->attrs["group"] = ce;
  b.op("Clip", p + "_clip2", {d, scalar(p + "_lo2", 0.f), scalar(p + "_hi2", 6.f)}, {d6});
  b.op("Conv", p + "_project", {d6, b.cst(p + "_wp", {c_out, ce, 1, 1})}, {y});
  return y;
}

// x -> Relu -> block 1 (8 -> 48 -> 16 channels, stride 2, 27x31 -> 14x16) -> block 2
// (16 -> 32 -> 16, stride 1) -> Relu -> out. Block 1's expanded tensor (160,704 B)
// sets the peak; block 2's (28,672 B) is smaller than what block 1 holds fused.
struct TwoBlocks {
  G b;
  TwoBlocks() {
    Value* x = b.input("x", {1, 8, 27, 31});
    Value* r = b.val("r", {1, 8, 27, 31});
    b.op("Relu", "pre", {x}, {r});
    Value* y1 = inverted_residual(b, "b1", r, 48, 16, 2);
    Value* y2 = inverted_residual(b, "b2", y1, 32, 16, 1);
    Value* out = b.val("out", {1, 16, 14, 16});
    b.op("Relu", "post", {y2}, {out});
    b.output(out);
  }
};

std::vector<std::string> op_types(const Graph& g) {
  std::vector<std::string> t;
  for (const auto& n : g.nodes) t.push_back(n->op_type);
  return t;
}

TEST(PatchFusion, TakesThePatchFormWhereItLowersThePeak) {
  TwoBlocks fused, plain;
  ASSERT_EQ(fuse_inverted_residuals(fused.b.g, /*ram=*/false), 1u);
  EXPECT_EQ(op_types(fused.b.g), (std::vector<std::string>{"Relu", "KilnInvertedResidual", "Conv", "Clip", "Conv",
                                                            "Clip", "Conv", "Relu"}));
  const Node* f = std::next(fused.b.g.nodes.begin())->get();
  EXPECT_EQ(f->name, "b1_project");
  ASSERT_EQ(f->inputs.size(), 7u);
  EXPECT_EQ(f->input(0)->name, "r");
  EXPECT_EQ(f->outputs.at(0)->name, "b1_y");
  // The kernel works in bands of output rows: its scratch is far below the
  // expanded tensor (48 x 27 x 31 floats).
  const LoweredGraph lowered = lower_graph(fused.b.g, LoweringTarget{});
  const KernelCall& k = lowered.calls.at(f);
  ASSERT_EQ(k.scratch.size(), 1u);
  EXPECT_LT(k.scratch[0].size_bytes, 48u * 27 * 31 * 4 / 2);
  // Lower peak than the same graph unfused, both with every other memory technique.
  const BufferizedProgram p = bufferize_choosing_overlaps(fused.b.g, lowered, {});
  EXPECT_EQ(check_overlaps(p), "");
  const uint64_t unfused_peak = live_peak(bufferize_choosing_overlaps(plain.b.g, lower_graph(plain.b.g, LoweringTarget{}), {}));
  EXPECT_LT(live_peak(p), unfused_peak * 3 / 4) << live_peak(p) << " vs " << unfused_peak;
  // Block 2 stays unfused with RAM priority too (the threshold halves, but its fused
  // op would hold its input and output, 14,336 B each, and a scratch row: more than
  // its 28,672-byte expanded tensor).
  TwoBlocks ram;
  EXPECT_EQ(fuse_inverted_residuals(ram.b.g, /*ram=*/true), 1u);
}

TEST(PatchFusion, LeavesABlockWhosePatchFormHoldsMore) {
  // 16 -> 24 -> 16 channels at 8x8: the fused op holds its input and output (4,096 B
  // each) besides the scratch, more than the 6,144-byte expanded tensor the unfused
  // block needs, although that tensor is the largest of the graph.
  G b;
  Value* x = b.input("x", {1, 16, 8, 8});
  Value* r = b.val("r", {1, 16, 8, 8});
  b.op("Relu", "pre", {x}, {r});
  Value* y = inverted_residual(b, "blk", r, 24, 16, 1);
  b.output(y);
  EXPECT_EQ(fuse_inverted_residuals(b.g, /*ram=*/false), 0u);
  EXPECT_EQ(fuse_inverted_residuals(b.g, /*ram=*/true), 0u);
  EXPECT_EQ(b.g.nodes.size(), 6u);
}

}  // namespace
}  // namespace kiln
