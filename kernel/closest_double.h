/* The backstop of both kernels' simplex solvers: the point of the convex
 * hull of up to four points closest to the origin, by Johnson's subalgorithm
 * in double precision over every subset (no caching). GJK calls it only when
 * the float answer is in doubt: four points that hold the origin by less
 * than a margin rounding cannot fake (MINK_GJK_INSIDE_REL), and a stop with
 * bounds that disagree. */
#ifndef MINK_CLOSEST_DOUBLE_H
#define MINK_CLOSEST_DOUBLE_H

/* pts[i] for the slots in `bits`; writes the weights (0 outside the chosen
 * subset, summing to 1) and the closest point v (summed in double) and
 * returns the chosen subset's slots. Slots outside `bits` must be finite. */
unsigned mink_closest_double(const float pts[4][3], unsigned bits, float lambda[4], float v[3]);

#endif
