// KernelBackend: every numeric operation pstwin's roles perform, behind one interface, so that a
// CUDA implementation slots in beside the CPU one (DESIGN.md, rule 3). Every call returns the Cost
// of what it did, so the simulation can price it with the roofline model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/cost.h"
#include "kernels/matrix.h"

namespace pstwin {

/// Numeric kernels. Pointers are host pointers; implementations may stage them on a device.
/// Implementations are not thread-safe; use one instance per role.
class KernelBackend {
 public:
  virtual ~KernelBackend() = default;

  /// Short name, e.g. "cpu".
  virtual std::string name() const = 0;

  /// Binary logistic regression, forward and (optionally) backward, over the selected rows of x.
  /// Parameters: params[0..d) are weights, params[d] the bias, with d = x.cols().
  /// labels01[i] in {0, 1} is the label of row i of x (indexed by the full matrix row).
  /// Loss per row: log(1 + exp(-y z)) with y = 2*label-1 and z = x_i . w + b, computed stably.
  /// If grad is non-null it receives the MEAN gradient over the selection (size d+1, overwritten).
  /// stats (non-null) receives the loss sum, correct predictions (z >= 0 predicts 1) and count.
  virtual Cost logistic(const FeatureView& x, const float* labels01, RowSelection sel,
                        const float* params, float* grad, LossStats* stats) = 0;

  /// Multinomial (softmax) regression, forward and (optionally) backward.
  /// Parameters: a k x (d+1) row-major block; row c holds class c's d weights then its bias.
  /// labels[i] in [0, k) is row i's class. Loss per row: -log softmax(z)_label, with
  /// z_c = x_i . W_c + b_c computed with the max-subtraction trick.
  /// If grad is non-null it receives the MEAN gradient (size k*(d+1), overwritten).
  /// stats receives loss sum, correct predictions (argmax z, lowest index on ties), count.
  virtual Cost softmax(const FeatureView& x, const std::int32_t* labels, std::size_t k,
                       RowSelection sel, const float* params, float* grad, LossStats* stats) = 0;

  /// acc[i] += scale * g[i] for i < n (gradient aggregation and L2 terms).
  virtual Cost axpy(float* acc, const float* g, std::size_t n, float scale) = 0;

  /// Plain SGD: w[i] -= lr * g[i].
  virtual Cost sgd_update(float* w, const float* g, std::size_t n, float lr) = 0;

  /// Heavy-ball momentum (Polyak 1964; as in Sutskever et al. 2013 without Nesterov):
  /// v[i] = mu * v[i] + g[i]; w[i] -= lr * v[i].
  virtual Cost momentum_update(float* w, float* v, const float* g, std::size_t n, float lr,
                               float mu) = 0;

  // ---- Adaptive server-side optimizers. Both scale the gradient first, g'[i] = grad_scale *
  // g[i], because neither rule is linear in g: grad_scale (1/W for one worker's gradient under
  // ASP/SSP) cannot be folded into the learning rate. sqrt and division count 1 flop each.

  /// Adagrad (Duchi, Hazan and Singer, JMLR 2011, diagonal form), for i < n:
  ///   g' = grad_scale * g[i];  h[i] += g'^2;  w[i] -= lr * g' / (sqrt(h[i]) + eps).
  /// w and h (the running sum of squares, start it at 0) are updated in place; g is read only.
  /// Cost: 8n flops, 20n bytes (read w, h, g; write w, h).
  virtual Cost adagrad_update(float* w, float* h, const float* g, std::size_t n, float lr,
                              float eps, float grad_scale) = 0;

  /// Adam (Kingma and Ba, ICLR 2015, Algorithm 1), for i < n, with step t >= 1 (1 on the first
  /// call for these moments; the caller counts):
  ///   g' = grad_scale * g[i];  m[i] = beta1 m[i] + (1-beta1) g';  v[i] = beta2 v[i] + (1-beta2) g'^2;
  ///   w[i] -= lr * (m[i] / (1 - beta1^t)) / (sqrt(v[i] / (1 - beta2^t)) + eps).
  /// The bias corrections are computed once per call in double. w, m, v (start m and v at 0) are
  /// updated in place; g is read only. Throws std::invalid_argument for t == 0 or a beta
  /// outside [0, 1).
  /// Cost: 15n flops, 28n bytes (read w, m, v, g; write w, m, v).
  virtual Cost adam_update(float* w, float* m, float* v, const float* g, std::size_t n, float lr,
                           float beta1, float beta2, float eps, std::uint64_t t,
                           float grad_scale) = 0;

  // ---- Dense building blocks of the MLP (runtime/model/mlp_model.cc). All matrices are
  // row-major float32; "ld" is the stride between consecutive rows, in elements.

  /// General matrix product C = alpha * op(A) * op(B) + beta * C, where op(A) is m x k, op(B) is
  /// k x n and C is m x n. op(X) is X, or X transposed when its trans flag is set, so A is stored
  /// m x k (lda >= k) or, transposed, k x m (lda >= m); B is stored k x n (ldb >= n) or n x k
  /// (ldb >= k); ldc >= n. With beta == 0, C is overwritten and its old contents (even NaN) are
  /// never read; otherwise it is scaled and accumulated into. k == 0 gives C = beta * C. C must
  /// not overlap A or B. Deterministic: each C element sums its k products in ascending order.
  /// Cost: flops 2mnk (+ 2mn when beta != 0); bytes 4(mk + kn + mn) (+ 4mn when beta != 0, for
  /// reading C): each operand is assumed to move through memory once.
  virtual Cost gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k,
                    float alpha, const float* a, std::size_t lda, const float* b, std::size_t ldb,
                    float beta, float* c, std::size_t ldc) = 0;

  /// Copies the selected rows of x into `out`, a dense sel.count x x.cols() row-major matrix
  /// (overwritten; entries a CSR row does not store become 0). Row s of out is row sel.rows[s].
  /// Throws std::out_of_range for a selected row >= x.rows().
  /// Cost: 0 flops; bytes 4 n d (writing out) + 4n (the selection) + dense: 4 n d (reading x);
  /// CSR: 16n + 8N (row pointers, then index and value of each of the N stored entries).
  virtual Cost gather_rows(const FeatureView& x, RowSelection sel, float* out) = 0;

  /// Adds a bias to each row, then optionally applies ReLU, in place on the rows x cols matrix z:
  ///   z[i][j] = z[i][j] + bias[j], then max(0, that) when relu is set.
  /// Cost: flops rows*cols (2 rows*cols with relu); bytes 8 rows*cols + 4 cols.
  virtual Cost bias_activation(float* z, const float* bias, std::size_t rows, std::size_t cols,
                               bool relu) = 0;

  /// ReLU backward, in place: grad[i] = 0 wherever activation[i] <= 0, unchanged elsewhere, for
  /// i < n. `activation` is the ReLU's output (positive exactly where its input was).
  /// Cost: n flops (the comparisons); 12n bytes (read grad and activation, write grad).
  virtual Cost relu_backward(float* grad, const float* activation, std::size_t n) = 0;

  /// Column sums of the rows x cols matrix d (the bias gradient): out[j] = sum_i d[i][j], summed
  /// over i in ascending order; out (cols floats) is overwritten. rows == 0 gives zeros.
  /// Cost: rows*cols flops; bytes 4 rows*cols + 4 cols.
  virtual Cost column_sums(const float* d, std::size_t rows, std::size_t cols, float* out) = 0;

  /// Softmax cross-entropy over a rows x k logits matrix z with labels[i] in [0, k) for row i.
  /// Loss of row i: log sum_c exp(z_ic) - z_i,label, with the max subtracted first (exponentials
  /// summed in double). stats (if non-null) is overwritten with the loss sum, the rows whose first
  /// maximal logit is the label, and count = rows. If dz is non-null it is overwritten with
  /// dz_ic = grad_scale * (softmax(z_i)_c - [c == label_i]); dz may be z itself (in place).
  /// Throws std::invalid_argument for k == 0 or a label outside [0, k).
  /// Cost, T = 10 flops per exp or log: flops rows*(k(3 + T) + T + 2), plus 3 rows*k with dz;
  /// bytes 4 rows*k + 4 rows (labels), plus 4 rows*k with dz.
  virtual Cost softmax_xent(const float* z, const std::int32_t* labels, std::size_t rows,
                            std::size_t k, float* dz, float grad_scale, LossStats* stats) = 0;

  // ---- Matrix factorisation for recommendation (runtime/model/mf_model.cc).

  /// Biased matrix factorisation with squared error (Koren, Bell and Volinsky, IEEE Computer
  /// 2009), forward and (optionally) backward over a mini-batch of ratings.
  /// `rows` is an n_rows x (1 + rank) row-major table of parameter rows, each [bias, factors...]:
  /// the whole model, or (the sparse parameter-server case) only the rows a batch touches.
  /// Rating j < batch.count reads user row u = batch.user_row[j] and item row i =
  /// batch.item_row[j] (both < n_rows) and predicts
  ///   r_hat_j = mean + b_u + b_i + p_u . q_i,   e_j = batch.rating[j] - r_hat_j.
  /// The per-rating loss is e_j^2 + l2 * (||row_u||^2 + ||row_i||^2) (norms include the biases),
  /// so a row is regularised once per rating that touches it. stats (if non-null) is overwritten
  /// with loss_sum = sum_j e_j^2 (the squared errors only), correct = 0 and count = batch.count.
  /// If grad is non-null (n_rows x (1 + rank) floats, overwritten) it receives the MEAN gradient
  /// of the per-rating loss over the batch; rows no rating touches get zeros. Throws
  /// std::out_of_range for a row index >= n_rows.
  /// Cost, w = 1 + rank, T = min(n_rows, 2 count) rows touched: flops count*(2 rank + 6) forward,
  /// plus count*(8 rank + 10) with grad; bytes 12 count (the batch) + 4 w T (rows read once),
  /// plus 4 w n_rows with grad (written once).
  virtual Cost matrix_factorization(const float* rows, std::size_t n_rows, std::size_t rank,
                                    const MfBatch& batch, float mean, float l2, float* grad,
                                    LossStats* stats) = 0;
};

/// The CPU implementation (single-threaded, deterministic summation order). The CUDA one is in
/// kernels/cuda_backend.h; make_backend (kernels/select_backend.h) chooses between them.
std::unique_ptr<KernelBackend> make_cpu_backend();

}  // namespace pstwin
