/*
 * turn.c — how far a turning object's faces leave their swept hulls: the
 * arc margin of swept mode (scene.h, clash_turn).
 *
 * Swept mode tests the convex hull of a face's positions at s-1 and s.  That
 * hull holds the face's whole path only when every vertex moves on its
 * chord, i.e. when the object does not turn.  A rigid object that turns
 * moves its vertices on arcs.  Write a vertex's path as p(τ), τ in [0, 1],
 * and its chord as c(τ) = (1-τ) p(0) + τ p(1).  A point of the face at τ is
 * Σ λ_i p_i(τ) (barycentric λ, the same at every τ: the motion is affine),
 * and Σ λ_i c_i(τ) = (1-τ) (face at s-1) + τ (face at s) lies in the hull.
 * So the face's path stays within  max_i max_τ |p_i(τ) - c_i(τ)|  of its
 * hull: the margin is the largest chord deviation of its vertices, and a
 * face pair can touch during the step only when the hulls are at most the
 * sum of the two margins apart.  The stages grow the face boxes by it and
 * use it as the tolerance of the hull tests (stages/facetest.h).
 *
 * Only the rotation bends a path: the translation part of both motions
 * below is linear in τ (it cancels in p - c), so each bound is on the
 * rotated vector w = R(τ) (scale * local) alone, or its screw equivalent.
 *
 * 1. Scene-file laws: R(τ) = Rz(c(τ)) Ry(b(τ)) Rx(a(τ)), each angle linear in
 *    τ with rates α, β, γ (radians per step: angular_velocity_deg), about
 *    the local origin, so |w| = scale * |local| = scale * r.
 *    One axis turning (exactly one of α, β, γ non-zero): R(τ) turns about a
 *    fixed axis (ẑ, Rz(c) ŷ or Rz(c) Ry(b) x̂) by θ = |rate|; the point moves
 *    on a circle of radius ρ <= |w| and, with φ = τθ,
 *        |p - c| = ρ |e^{iτθ} - (1-τ) - τ e^{iθ}|,
 *    whose maximum over τ is at τ = 1/2 for 0 <= θ <= 2π: ρ (1 - cos(θ/2))
 *    (checked numerically on a fine grid of θ and τ), and never more than
 *    2ρ (two points of a ball of radius ρ) for larger θ.
 *    Several axes: bound the curvature.  p'' is continuous, and
 *        p(τ) - c(τ) = -∫ G(τ, σ) p''(σ) dσ,  G >= 0,  ∫ G dσ = τ(1-τ)/2,
 *    so |p - c| <= max |p''| / 8 (Euclidean norm: the integral form holds
 *    for vectors).  The angular velocity is
 *        ω = γ ẑ + β Rz(c) ŷ + α Rz(c) Ry(b) x̂,  |ω| <= Ω = |α| + |β| + |γ|,
 *    and its derivative, the axes' own turning,
 *        ω' = βγ ẑ × Rz ŷ + α (γ ẑ + β Rz ŷ) × Rz Ry x̂,
 *        |ω'| <= P = |βγ| + |αγ| + |αβ|;
 *    p' = ω × w and p'' = ω' × w + ω × (ω × w), so |p''| <= (Ω² + P) |w|
 *    and the deviation is at most  min(2, (Ω² + P) / 8) |w|.  (For one
 *    axis that is θ²/8 against the exact 1 - cos(θ/2) ≈ θ²/8 - θ⁴/384.)
 *    So k = scale * D with D the one-axis or the several-axes factor.
 *
 * 2. Host poses: the motion between pose A0 = (R0, t0) and A1 = (R1, t1)
 *    is the screw motion: the rotation ΔR = R1 R0^T by its angle θ in
 *    [0, π] about a fixed line, with the translation along that line, both
 *    proportional to τ (Chasles: every rigid displacement is one).  The
 *    axial part is linear; a point at distance ρ from the line moves on an
 *    arc of angle θ, whose chord in the plane across the line is 2ρ sin(θ/2)
 *    and at most the whole chord |p(1) - p(0)|.  So, as above,
 *        |p - c| <= ρ (1 - cos(θ/2)) = |chord⊥| tan(θ/4) / 2
 *                <= |p(1) - p(0)| tan(θ/4) / 2:
 *    k = tan(θ/4) / 2 (at most 1/2) on the vertex's chord, which S0 has
 *    already computed, with no axis to find (the axis is ill-conditioned for
 *    small θ; this is not).  θ comes from ‖R1 - R0‖_F = ‖ΔR - I‖_F =
 *    2√2 sin(θ/2).  The API accepts rotations orthonormal within 1e-6: with
 *    e_i = ‖R_i R_i^T - I‖_F (which bounds the distance of R_i to the nearest
 *    rotation Q_i), the motion is the screw from Q0 to Q1 plus the linear
 *    blend of the residues R_i - Q_i; its angle is computed from
 *    ‖R1 - R0‖ + e0 + e1 >= ‖Q1 - Q0‖, and eps gets (e0 + e1) M for the
 *    chords' difference.  A pose that follows positions set directly (a
 *    deforming object, S0 marks its pose NaN) has no pose to turn from: its
 *    vertices move on straight lines, as between set positions.
 *
 * Rounding.  S0 rounds every end position to float: each moves by at most
 * half an ulp per coordinate, √3/2 · 2^-23 M in all, where M bounds the
 * coordinates' magnitude (scale * radius + |t|).  eps = 2^-20 M covers that
 * and the double arithmetic of the margins (relative 1e-15 of k r <= 2M)
 * many times over.  Every margin is zero for an object that does not turn
 * (its rotation bit for bit the same at both ends), so results there are the
 * same as without margins, bit for bit.
 */
#include <math.h>
#include <string.h>

#include "store/scene.h"

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

void clash_turn_law(const clash_pose *p, int s, double radius, clash_turn *t)
{
    const double deg = 3.14159265358979323846 / 180.0;
    const double a = fabs(p->angular_velocity_deg[0] * deg), b = fabs(p->angular_velocity_deg[1] * deg),
                 c = fabs(p->angular_velocity_deg[2] * deg);
    const int axes = (a > 0) + (b > 0) + (c > 0);
    if (!axes) {
        *t = (clash_turn){.kind = CLASH_TURN_NONE};
        return;
    }
    double D;
    if (axes == 1) {
        const double th = a + b + c;
        D = th <= 2 * 3.14159265358979 ? 1 - cos(0.5 * th) : 2;
    } else {
        const double W = a + b + c, P = a * b + a * c + b * c;
        D = fmin(2, (W * W + P) / 8);
    }
    double t0[3], t1[3];
    for (int d = 0; d < 3; ++d)
        t0[d] = p->position[d] + (s - 1) * p->velocity[d], t1[d] = p->position[d] + s * p->velocity[d];
    const double M = p->scale * radius + fmax(norm3(t0), norm3(t1));
    t->kind = CLASH_TURN_RADIUS;
    t->k = p->scale * D * (1 + 1e-12);
    t->eps = 0x1p-20 * M + 1e-30;
    t->bound = t->k * radius + t->eps;
}

/* ‖R R^T - I‖_F */
static double skew_of(const double R[9])
{
    double e = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const double x = R[3 * i] * R[3 * j] + R[3 * i + 1] * R[3 * j + 1] + R[3 * i + 2] * R[3 * j + 2] - (i == j);
            e += x * x;
        }
    return sqrt(e);
}

void clash_turn_screw(const clash_xform *a, const clash_xform *b, double scale, double radius, clash_turn *t)
{
    if (!memcmp(a->R, b->R, sizeof a->R) || isnan(a->R[0])) { /* not turning, or from set positions */
        *t = (clash_turn){.kind = CLASH_TURN_NONE};
        return;
    }
    double F = 0;
    for (int i = 0; i < 9; ++i) F += (b->R[i] - a->R[i]) * (b->R[i] - a->R[i]);
    const double e = skew_of(a->R) + skew_of(b->R);
    F = (sqrt(F) + e) * (1 + 1e-12);
    const double half = asin(fmin(1, F / (2 * sqrt(2.0)))); /* θ/2, rounded up through F */
    const double dt[3] = {b->t[0] - a->t[0], b->t[1] - a->t[1], b->t[2] - a->t[2]};
    const double M = scale * radius + fmax(norm3(a->t), norm3(b->t));
    t->kind = CLASH_TURN_CHORD;
    t->k = 0.5 * tan(0.5 * half) * (1 + 1e-12);
    t->eps = (0x1p-20 + e) * M + 1e-30;
    /* every chord: |(R1 - R0) scale l + Δt| <= ‖R1 - R0‖_F scale r + |Δt|, plus the float rounding */
    t->bound = t->k * (F * scale * radius + norm3(dt) + 0x1p-20 * M) * (1 + 1e-12) + t->eps;
}
