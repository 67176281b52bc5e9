// Input shapes a test data set gives a model with open dimensions (`kiln verify`
// without --input-shape).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "ir/graph.h"

namespace kiln {

// For each tensor graph input of `model` (initializers excluded) whose declared
// shape leaves a dimension open (a dim_param, no value, or no shape at all): the
// shape of its test data file `data_dir`/input_<position>.pb, where position counts
// the graph's non-initializer inputs. Inputs without a readable file, or whose file
// disagrees with the declared rank or a declared dimension, are left out (the
// compile then names what is still open). Never throws for a bad model: the
// compile reports that.
std::map<std::string, Shape> open_input_shapes_from_test_data(const std::filesystem::path& model,
                                                              const std::filesystem::path& data_dir);

}  // namespace kiln
