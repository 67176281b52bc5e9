#!/usr/bin/python3
"""Makes examples/cnn: a small PyTorch CNN exported to ONNX, plus reference data.

The network is what a microcontroller image classifier looks like (MNIST-sized
input, two Conv+BatchNorm+ReLU+MaxPool stages, a classifier head) and is exported
the way PyTorch users export: eval mode, `torch.onnx.export`, `x.view(x.size(0), -1)`
for the flatten (which PyTorch emits as Shape -> Gather -> Unsqueeze -> Concat ->
Reshape, a chain Kiln must fold at compile time).

The reference outputs come from PyTorch itself, an implementation independent of
Kiln. Weights are random (fixed seed) with BatchNorm statistics set away from the
identity so the BatchNorm really matters.

Run with Debian's python3 (python3-torch, python3-onnx):
    /usr/bin/python3 examples/cnn/make_model.py
The outputs (model.onnx, test_data_set_*/) are committed; `make demo` does not
need PyTorch.
"""
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(16 * 7 * 7, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = self.pool(torch.relu(self.bn2(self.conv2(x))))
        x = x.view(x.size(0), -1)
        x = torch.relu(self.fc1(x))
        return torch.softmax(self.fc2(x), dim=1)


def main():
    torch.manual_seed(7)
    model = SmallCnn()
    with torch.no_grad():
        for bn in (model.bn1, model.bn2):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.2, 0.2)
    model.eval()

    dummy = torch.zeros(1, 1, 28, 28)
    path = os.path.join(HERE, "model.onnx")
    # PRESERVE keeps BatchNormalization as its own node (eval mode would fuse it into
    # the Conv during export); Kiln folds it itself.
    torch.onnx.export(model, dummy, path, input_names=["input"], output_names=["probabilities"],
                      opset_version=13, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE)
    onnx.checker.check_model(onnx.load(path))

    rng = np.random.default_rng(11)
    for k in range(2):
        x = rng.uniform(0.0, 1.0, size=(1, 1, 28, 28)).astype(np.float32)
        with torch.no_grad():
            y = model(torch.from_numpy(x)).numpy()
        d = os.path.join(HERE, "test_data_set_%d" % k)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, "input").SerializeToString())
        with open(os.path.join(d, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y, "probabilities").SerializeToString())
    ops = [n.op_type for n in onnx.load(path).graph.node]
    print("wrote", path, "with", len(ops), "nodes:", " ".join(ops))


if __name__ == "__main__":
    main()
