// Pinocchio side of bench/arm_vs_pinocchio.sh: ABA, RNEA and CRBA of a URDF arm, µs per call,
// best of 5 × 200,000 calls over 64 random states, one core. CRBA twice: as Pinocchio returns it
// (the upper triangle) and with its lower triangle copied in (the whole matrix, as Tumble returns).
#include <pinocchio/parsers/urdf.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <chrono>
#include <iostream>
#include <vector>
int main(int argc, char** argv) {
  pinocchio::Model model; pinocchio::urdf::buildModel(argv[1], model);
  model.gravity.linear() << 0, 0, -9.81;
  pinocchio::Data data(model);
  std::vector<Eigen::VectorXd> q, v, t;
  srand(1);
  for (int i = 0; i < 64; ++i) { q.push_back(Eigen::VectorXd::Random(model.nq)); v.push_back(Eigen::VectorXd::Random(model.nv)); t.push_back(Eigen::VectorXd::Random(model.nv)); }
  const int N = 200000;
  auto time = [&](auto f) { double best = 1e9; for (int r = 0; r < 5; ++r) { auto s = std::chrono::steady_clock::now(); double acc = 0; for (int k = 0; k < N; ++k) acc += f(k % 64); auto e = std::chrono::steady_clock::now(); best = std::min(best, std::chrono::duration<double>(e - s).count()); if (acc == 12345.678) std::cout << ""; } return best / N * 1e6; };
  double aba = time([&](int k) { return pinocchio::aba(model, data, q[k], v[k], t[k])[0]; });
  double rnea = time([&](int k) { return pinocchio::rnea(model, data, q[k], v[k], t[k])[0]; });
  // Pinocchio's crba fills the upper triangle only; Tumble's mass matrix is the whole symmetric
  // matrix, so the like-for-like figure adds the copy Pinocchio's documentation gives for it.
  double crba = time([&](int k) { return pinocchio::crba(model, data, q[k])(0, 0); });
  double full = time([&](int k) {
    pinocchio::crba(model, data, q[k]);
    data.M.triangularView<Eigen::StrictlyLower>() = data.M.transpose().triangularView<Eigen::StrictlyLower>();
    return data.M(model.nv - 1, 0);
  });
  std::cout << "pinocchio " << PINOCCHIO_VERSION << " aba " << aba << " us, rnea " << rnea << " us, crba " << crba
            << " us (upper triangle), crba and its lower triangle " << full << " us\n";
}
