#include "common/launcher.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "common/error.h"

using namespace tune;

namespace {

Environment env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

std::string refusal(int mpi_size, bool built, const Environment& e) {
  try {
    check_launcher(mpi_size, built, e);
  } catch (const InputError& err) {
    return err.what();
  }
  return "";
}

}  // namespace

// Each launcher's variables give its count of ranks.
TEST(Launcher, ReadsEveryLaunchersCount) {
  EXPECT_FALSE(launcher_ranks(env({})));
  EXPECT_EQ(launcher_ranks(env({{"OMPI_COMM_WORLD_SIZE", "4"}}))->count, 4);
  EXPECT_EQ(launcher_ranks(env({{"PMI_SIZE", "2"}}))->count, 2);
  EXPECT_EQ(launcher_ranks(env({{"MPI_LOCALNRANKS", "3"}, {"PMI_SIZE", "2"}}))->count, 3);
  EXPECT_EQ(launcher_ranks(env({{"PMIX_RANK", "1"}}))->count, 2);
  EXPECT_EQ(launcher_ranks(env({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "8"}}))->count, 8);
  EXPECT_EQ(launcher_ranks(env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}}))->count, 2);
  // a batch script (no SLURM_PROCID) is no rank of a step
  EXPECT_FALSE(launcher_ranks(env({{"SLURM_NTASKS", "4"}})));
  EXPECT_FALSE(launcher_ranks(env({{"OMPI_COMM_WORLD_SIZE", "two"}})));
}

// The launcher says several ranks, MPI one: refused, naming both counts and the cause.
TEST(Launcher, RefusesASilentDuplicate) {
  const auto e = env({{"OMPI_COMM_WORLD_SIZE", "2"}});
  const std::string built = refusal(1, true, e);
  EXPECT_NE(built.find("launcher started 2 ranks (OMPI_COMM_WORLD_SIZE=2)"), std::string::npos) << built;
  EXPECT_NE(built.find("MPI reports 1"), std::string::npos) << built;
  EXPECT_NE(built.find("different MPI"), std::string::npos) << built;
  EXPECT_NE(refusal(1, false, e).find("built without MPI"), std::string::npos);
  EXPECT_EQ(refusal(2, true, e), "");                                     // the ranks joined
  EXPECT_EQ(refusal(1, true, env({{"OMPI_COMM_WORLD_SIZE", "1"}})), "");  // mpirun -n 1
  EXPECT_EQ(refusal(1, true, env({})), "");                               // no launcher
}
