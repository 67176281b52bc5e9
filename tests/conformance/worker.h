// One job of the conformance run, executed in a child process of the runner
// (so that a compiler crash or hang costs one job, not the run): compile each
// test's model, build one image with every test data set of every test in the
// job (kiln verify's machinery), run it on the board, compare, classify.
//
// A job is one test on the host (ASan/UBSan image per test) or a batch of tests
// on a QEMU board (one firmware image, one QEMU start). When a batch image fails
// as a whole (does not link, crashes, times out), each of its tests is rebuilt
// and run alone, so one bad test cannot take the others down.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "outcome.h"

namespace kiln::conformance {

struct JobTest {
  std::string id;  // "node/test_abs"
  std::filesystem::path dir;
  std::vector<std::filesystem::path> data_sets;
  std::string module;  // C identifier, unique within the job
};

struct Job {
  std::vector<JobTest> tests;
  std::string board = "host";
  double run_timeout_s = 60;  // one run of the image
  std::filesystem::path work_dir;
  std::filesystem::path crt_cache_dir;
  bool keep = false;  // keep the work folders of tests that pass or are unsupported
};

nlohmann::json job_to_json(const Job& job);
Job job_from_json(const nlohmann::json& j);

// Runs the job in this process; never throws for a failing test.
std::map<std::string, Outcome> run_job(const Job& job);

}  // namespace kiln::conformance
