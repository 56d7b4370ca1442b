#include "sim/models/heat2d/heat_params.hpp"

namespace ss {

std::vector<ParamSpec> heat_params() {
  std::vector<ParamSpec> p(6);
  p[0].name = "boundary";
  p[0].label = "boundary";
  p[0].kind = ParamKind::choice;
  p[0].choices = {"analytic", "periodic", "fixed", "insulated"};
  p[0].default_choice = "analytic";
  p[0].selects_code = true;
  p[0].help = "ghost cells: analytic (the exact solution, the CME 213 case), periodic (wrapped), fixed (a constant "
              "value) or insulated (mirrored: zero flux)";
  p[1].name = "initial";
  p[1].label = "initial";
  p[1].kind = ParamKind::choice;
  p[1].choices = {"analytic", "hot-disc", "hot-spots", "checkerboard"};
  p[1].default_choice = "analytic";
  p[1].help = "the field at t = 0: analytic (sine modes with a known solution), hot-disc, hot-spots (random, from the "
              "seed) or checkerboard";
  p[2].name = "alpha";
  p[2].label = "alpha";
  p[2].unit = "length^2/time";
  p[2].kind = ParamKind::real;
  p[2].default_number = 1.0;
  p[2].min = 1e-12;
  p[2].max = 1e12;
  p[2].help = "diffusivity; the stability limit of dt scales with 1/alpha";
  p[3].name = "dt";
  p[3].label = "dt";
  p[3].unit = "time";
  p[3].kind = ParamKind::real;
  p[3].default_number = 0.0;
  p[3].min = 0.0;
  p[3].zero_means_auto = true;
  p[3].help = "time step; 0 picks half the stability limit of the order; above the limit is refused";
  p[4].name = "fixed_value";
  p[4].label = "fixed value";
  p[4].kind = ParamKind::real;
  p[4].default_number = 0.0;
  p[4].min = -1e30;
  p[4].max = 1e30;
  p[4].shown_when = "boundary=fixed";
  p[4].help = "the ghost value of the fixed boundary";
  p[5].name = "seed";
  p[5].label = "seed";
  p[5].kind = ParamKind::integer;
  p[5].default_number = 1;
  p[5].min = 0;
  p[5].max = 4294967295.0;
  p[5].help = "seed of the random initial conditions (hot-spots)";
  return p;
}

std::vector<Preset> heat_presets() {
  return {
      {"CME 213", "the assignment's case: sine modes with their exact solution on the boundary",
       {{"initial", std::string("analytic")}, {"boundary", std::string("analytic")}}},
      {"hot disc", "a hot disc in a cold insulated box",
       {{"initial", std::string("hot-disc")}, {"boundary", std::string("insulated")}}},
      {"hot spots", "random hot spots on a periodic domain",
       {{"initial", std::string("hot-spots")}, {"boundary", std::string("periodic")}}},
      {"checkerboard", "a checkerboard held at 0 on the boundary",
       {{"initial", std::string("checkerboard")}, {"boundary", std::string("fixed")}, {"fixed_value", 0.0}}},
  };
}

StepAccounting heat_accounting(std::size_t points) {
  StepAccounting a;
  a.bytes = 2.0 * sizeof(float) * static_cast<double>(points);
  a.cell_updates = static_cast<double>(points);
  return a;
}

}  // namespace ss
