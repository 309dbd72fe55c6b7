/* points.c — the distance between two poses at virtual points (points.h). */
#include "anim/points.h"

#include <math.h>

double mr_points_apart(const mat4 *a, const mat4 *b, int joints, float distance)
{
    double worst = 0;
    for (int j = 0; j < joints; j++)
        for (int p = 0; p < 4; p++) {   /* the origin, then distance along x, y, z */
            if (p > 0 && distance == 0.0f) break;
            double d2 = 0;
            for (int r = 0; r < 3; r++) {
                double pa = a[j][3][r], pb = b[j][3][r];
                if (p > 0) {
                    pa += (double)distance * a[j][p - 1][r];
                    pb += (double)distance * b[j][p - 1][r];
                }
                d2 += (pa - pb) * (pa - pb);
            }
            if (d2 > worst) worst = d2;
        }
    return sqrt(worst);
}
