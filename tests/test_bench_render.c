/* test_bench_render.c — the render benchmark hook (src/bench/bench_render.c):
 * it opens its own headless context, draws the asked number of instances
 * and reports timings that add up. */
#include "bench/bench_render.h"
#include "gfx_fixture.h"
#include "test.h"

static mr_model *fig;

TEST(bench_render_reports_one_off_and_steady_costs)
{
    mr_bench_render_result res;
    mr_error err = {0};
    CHECK(mr_bench_render_run(&(mr_bench_render_desc){.model = fig, .width = 160, .height = 120,
                                                       .frames = 3, .warmup = -1},
                              &res, &err) == MR_OK);
    int tris = 0;
    mr_model_counts(fig, NULL, &tris);
    CHECK(res.triangles == tris);
    CHECK(res.create_ms > 0 && res.first_frame_ms > 0 && res.upload_ms >= 0);
    CHECK(res.frame_ms > 0 && res.frame_min_ms > 0 && res.frame_min_ms <= res.frame_ms);
    CHECK(res.pose_ms >= 0 && res.pose_ms < res.frame_ms);
    CHECK(res.frame_cpu_ms > 0);
    CHECK_NEAR(res.fps, 1000.0 / res.frame_ms, 1e-6);
}

TEST(bench_render_draws_every_instance)
{
    mr_bench_render_result res;
    mr_error err = {0};
    CHECK(mr_bench_render_run(&(mr_bench_render_desc){.model = fig, .instances = 7, .width = 160,
                                                       .height = 120, .frames = 2, .samples = 1},
                              &res, &err) == MR_OK);
    int tris = 0;
    mr_model_counts(fig, NULL, &tris);
    CHECK(res.triangles == 7 * tris);
}

int main(void)
{
    fig = fixture_model(NULL);
    RUN(bench_render_reports_one_off_and_steady_costs);
    RUN(bench_render_draws_every_instance);
    mr_model_destroy(fig);
    return test_summary("bench_render");
}
