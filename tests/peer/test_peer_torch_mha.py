"""PyTorch's tests of ``nn.MultiheadAttention`` (``test/nn/test_multihead_attention.py`` and
``test/test_transformers.py``), run on ``lessons.MultiHeadAttention``.

The adapter builds PyTorch's module, copies it with ``MultiHeadAttention.from_torch`` and
feeds both the same batch-first inputs. PyTorch's boolean masks block where True and its
float masks are added to the scores; the course's mask keeps where True (chapter 6), so
each mask is converted with ``lessons.keep_mask`` (``"block"`` or ``"additive"``). PyTorch's
``[B * h, n_q, n_k]`` masks become ``[B, h, n_q, n_k]``, its ``key_padding_mask [B, n_k]``
becomes ``[B, 1, 1, n_k]``. PyTorch averages the weights over heads by default; ours are
per head, averaged here when the case asks.
"""

from __future__ import annotations

import random

import pytest
import torch
from peer_common import DEFAULT_TOL, close, coin, rand, randn, refused
from torch import nn

import lessons

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def ours_and_theirs(embed_dim, num_heads, seed, **options):
    """PyTorch's module (batch-first, eval, seeded weights) and its copy in lessons."""
    torch.manual_seed(seed)
    theirs = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True, **options).eval()
    with torch.no_grad():
        for p in theirs.parameters():  # biases too, so that none is trivially zero
            p.copy_(randn(*p.shape, seed=seed + p.numel(), dtype=p.dtype) * 0.5)
    return lessons.MultiHeadAttention.from_torch(theirs), theirs


def blocked_rows(keep):
    """Which query rows of a keep-mask ``[..., n_q, n_k]`` keep no key at all."""
    return ~keep.any(-1)


# --- test_multihead_attention: the NumPy-reference helper -----------------------------------


def helper_case(seed):
    """Sizes drawn as the original's helper draws them: batch and length 2-10, d_head 3-10,
    an even head count 4-10; one query (a decoder state) attending to ``seq_len`` keys."""
    r = random.Random(seed)
    batch, seq_len = r.randint(2, 10), r.randint(2, 10)
    d_head = r.randint(3, 10)
    heads = r.randint(2, 5) * 2
    return batch, seq_len, d_head * heads, heads


@pytest.mark.agree
@pytest.mark.parametrize("average", [True, False])
@pytest.mark.parametrize("key_padding", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_copy_equals_multihead_attention_with_its_masks_and_weights(seed, key_padding, average):
    """test_multihead_attention.py, TestMultiheadAttentionNN.test_multihead_attention
    (its cases no_masking and key_padding_mask, average_attn_weights True and False).

    The original's float ``attn_mask [1, seq_len]`` (0 or -inf, at random) and, with
    ``key_padding``, one random padding pattern shared by the batch; output and weights
    within its atol 1e-5. A query whose every key is blocked is NaN in PyTorch and 0 in
    lessons (``lessons.attention``'s docstring and chapter 6): those rows are checked
    for exactly that.
    """
    batch, seq_len, d_model, heads = helper_case(seed)
    ours, theirs = ours_and_theirs(d_model, heads, seed)
    query = rand(batch, 1, d_model, seed=seed + 100)
    memory = rand(batch, seq_len, d_model, seed=seed + 200)
    attn_mask = torch.where(coin(1, seq_len, seed=seed + 300), 0.0, float("-inf"))
    padding = coin(1, seq_len, seed=seed + 400).expand(batch, seq_len) if key_padding else None
    out_t, w_t = theirs(
        query, memory, memory, attn_mask=attn_mask, key_padding_mask=padding,
        average_attn_weights=average,
    )  # fmt: skip
    keep = lessons.keep_mask(attn_mask, "additive")  # [1, seq_len]
    if padding is not None:
        keep = keep & lessons.keep_mask(padding, "block")[:, None, None]  # [B, 1, 1, seq_len]
    out_o, w_o = ours(query, memory, memory, mask=keep)  # w_o [B, h, 1, seq_len]
    if average:
        w_o = w_o.mean(1)  # [B, 1, seq_len]
    dead = blocked_rows(torch.broadcast_to(keep, (batch, 1, 1, seq_len)))[:, 0]  # [B, 1]
    per_row = dead if average else dead[:, None].expand(batch, heads, 1)  # w_o without n_k
    close(out_o[~dead], out_t[~dead], 1e-5, 0)
    close(w_o[~per_row], w_t[~per_row], 1e-5, 0)
    assert torch.isnan(out_t[dead]).all() and (w_o[per_row] == 0).all()


@pytest.mark.refuse
@pytest.mark.parametrize("seed", range(2))
def test_add_zero_attn_is_modelled_or_refused(seed):
    """test_multihead_attention.py, TestMultiheadAttentionNN.test_multihead_attention
    (its case add_zero_attn).

    ``add_zero_attn=True`` appends a zero key and value. The copy must either compute the
    same (within the original's atol 1e-5) or be refused with a message naming
    ``add_zero_attn`` (issue 42 found it copied, every output differing).
    """
    batch, seq_len, d_model, heads = helper_case(seed)
    torch.manual_seed(seed)
    theirs = nn.MultiheadAttention(d_model, heads, batch_first=True, add_zero_attn=True).eval()
    try:
        ours = lessons.MultiHeadAttention.from_torch(theirs)
    except ValueError as error:
        assert "add_zero_attn" in str(error)
        return
    x = rand(batch, seq_len, d_model, seed=seed)
    close(ours(x)[0], theirs(x, x, x)[0], 1e-5, 0)


@pytest.mark.refuse
def test_add_bias_kv_is_refused_saying_what_to_do():
    """test_multihead_attention.py, TestMultiheadAttentionNN.test_multihead_attention
    (its case add_bias_kv).

    Learned key and value biases are not modelled: refused, naming ``add_bias_kv`` and what
    to do instead (build the module with ``add_bias_kv=False``).
    """
    theirs = nn.MultiheadAttention(8, 2, add_bias_kv=True)
    refused(
        lambda: lessons.MultiHeadAttention.from_torch(theirs), "add_bias_kv", "add_bias_kv=False"
    )


@pytest.mark.refuse
@pytest.mark.parametrize("kdim", [2, 5])
def test_separate_key_widths_are_refused_naming_the_widths(kdim):
    """test_multihead_attention.py, TestMultiheadAttentionNNDeviceType.test_multihead_attn_in_proj_weight_none,
    and the helper's case ``same_embed_dim=False``.

    ``kdim = vdim != embed_dim`` gives separate projections, which lessons does not model:
    refused, naming the widths and what to use instead (project keys and values to
    ``embed_dim`` first, or build with ``kdim=vdim=None``).
    """
    theirs = nn.MultiheadAttention(4, 4, kdim=kdim, vdim=kdim)
    refused(lambda: lessons.MultiHeadAttention.from_torch(theirs), f"kdim={kdim}", "embed_dim=4")


@pytest.mark.agree
def test_copy_with_a_3d_mask_equals_multihead_attention_batch_by_batch():
    """test_multihead_attention.py, TestMultiheadAttentionNN.test_multihead_attn_3d_attn_mask.

    Cross-attention, B=8, 2 queries, 3 keys, width 8, 4 heads, a random 0/-inf mask
    ``[B, 2, 3]`` given to PyTorch as ``[B * h, 2, 3]``; to lessons as ``[B, 1, 2, 3]``.
    Rows with every key blocked are NaN in PyTorch and 0-weighted in lessons (chapter 6).
    """
    ours, theirs = ours_and_theirs(8, 4, seed=1)
    query, key = rand(8, 2, 8, seed=2), rand(8, 3, 8, seed=3)
    mask = torch.where(coin(8, 2, 3, seed=4), 0.0, float("-inf"))  # [B, 2, 3]
    out_t, _ = theirs(query, key, key, attn_mask=mask.repeat_interleave(4, dim=0))
    keep = lessons.keep_mask(mask, "additive")[:, None]  # [B, 1, 2, 3]
    out_o, weights = ours(query, key, key, mask=keep)
    dead = blocked_rows(keep[:, 0])  # [B, 2]
    close(out_o[~dead], out_t[~dead], *DEFAULT_TOL[torch.float32])
    assert (
        torch.isnan(out_t[dead]).all()
        and (weights.sum(-1)[dead[:, None].expand(8, 4, 2)] == 0).all()
    )


@pytest.mark.refuse
def test_a_mask_laid_out_batch_times_heads_is_refused_naming_its_shape():
    """test_multihead_attention.py, TestMultiheadAttentionNN.test_multihead_attn_3d_attn_mask (its layout).

    PyTorch's ``[B * h, n_q, n_k]`` layout does not broadcast to the course's weights
    ``[B, h, n_q, n_k]``: refused, naming the mask's shape and the layout it must fit.
    """
    ours, _ = ours_and_theirs(8, 4, seed=1)
    query, key = rand(8, 2, 8, seed=2), rand(8, 3, 8, seed=3)
    keep = coin(32, 2, 3, seed=4)
    refused(lambda: ours(query, key, key, mask=keep), "[32, 2, 3]", "[..., n_q, n_k]")


@pytest.mark.agree
@pytest.mark.parametrize("embed_dim,num_heads,shape,dtype", [
    (8, 4, (2, 3, 8), torch.float32),  # test_multihead_attn_no_bias
    (10, 1, (1, 5, 10), torch.float32),  # test_transformers.py: test_bias_is_none
    (2, 2, (2, 2, 2), torch.float64),  # test_multihead_attn_in_proj_bias_none
])  # fmt: skip
def test_copy_of_a_module_without_biases_has_none_and_agrees(embed_dim, num_heads, shape, dtype):
    """test_multihead_attention.py, test_multihead_attn_no_bias and test_multihead_attn_in_proj_bias_none;
    test_transformers.py, TestTransformers.test_bias_is_none.

    ``bias=False`` leaves no bias on the input or the output projection, in the copy too;
    the outputs agree within the dtype's default tolerance.
    """
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(embed_dim, num_heads, bias=False, batch_first=True).to(dtype)
    ours = lessons.MultiHeadAttention.from_torch(theirs.eval())
    assert ours.in_proj.bias is None and ours.out_proj.bias is None
    x = rand(*shape, seed=5, dtype=dtype)
    close(ours(x)[0], theirs(x, x, x)[0], *DEFAULT_TOL[dtype])


@pytest.mark.refuse
@pytest.mark.parametrize("which", ["key", "value"])
def test_a_2d_key_or_value_beside_a_3d_query_is_refused_naming_it(which):
    """test_multihead_attention.py, _test_multihead_attn_invalid_shape_impl (3-D query, 2-D key or value).

    PyTorch asserts "expected `key` and `value` to be 3-D"; lessons refuses with a
    ValueError naming the input and the shape it must have.
    """
    ours, _ = ours_and_theirs(4, 4, seed=0)
    query = randn(4, 4, 4, seed=1)
    key, value = (randn(4, 4, seed=2), query) if which == "key" else (query, randn(4, 4, seed=2))
    refused(lambda: ours(query, key, value), which, "[B, n, d_model=4]")


@pytest.mark.refuse
def test_an_unbatched_query_is_refused_naming_the_batched_shape():
    """test_multihead_attention.py, _test_multihead_attn_invalid_shape_impl (unbatched 2-D query).

    PyTorch also takes an unbatched ``[n, d]`` query; lessons takes ``[B, n, d_model]`` only
    (chapter 7) and says so, naming the shape it got.
    """
    ours, _ = ours_and_theirs(4, 4, seed=0)
    refused(lambda: ours(randn(4, 4, seed=1)), "[B, n, d_model=4]", "(4, 4)")


@pytest.mark.documented
def test_a_1d_mask_over_the_keys_broadcasts_where_pytorch_refuses_it():
    """test_multihead_attention.py, _test_multihead_attn_invalid_shape_impl (1-D attn_mask).

    PyTorch refuses a 1-D ``attn_mask``. ``MultiHeadAttention.forward``'s docstring takes any
    mask "broadcastable to [B, h, n_q, n_k]", and a 1-D ``[n_k]`` mask is one: it masks the
    same keys for every query, exactly as the mask expanded to ``[B, h, n_q, n_k]`` does.
    """
    ours, _ = ours_and_theirs(4, 4, seed=0)
    x = randn(4, 4, 4, seed=1)
    keep = torch.tensor([True, True, False, False])
    out, weights = ours(x, mask=keep)
    expanded, _ = ours(x, mask=keep.expand(4, 4, 4, 4))
    assert torch.equal(out, expanded) and (weights[..., 2:] == 0).all()


@pytest.mark.agree
@pytest.mark.parametrize("seed", range(3))
def test_copy_with_an_attention_and_a_padding_mask_equals_multihead_attention(seed):
    """test_multihead_attention.py, TestMultiheadAttentionNNDeviceType.test_multihead_self_attn_two_masks_fast_path.

    Width 14, 7 heads, B=8, n=5, a random boolean ``attn_mask [5, 5]`` and
    ``key_padding_mask [8, 5]`` (True = blocked), merged by lessons as two keep-masks; the
    float32 default tolerance, on the rows that keep a key (the original excludes the
    others, NaN in PyTorch; lessons gives them weight 0, chapter 6).
    """
    ours, theirs = ours_and_theirs(14, 7, seed=seed)
    x = rand(8, 5, 14, seed=seed + 1)
    attn_mask, padding = coin(5, 5, seed=seed + 2), coin(8, 5, seed=seed + 3)
    with torch.no_grad():
        out_t, _ = theirs(x, x, x, attn_mask=attn_mask, key_padding_mask=padding)
        keep = (
            lessons.keep_mask(attn_mask, "block")
            & lessons.keep_mask(padding, "block")[:, None, None]
        )
        out_o, weights = ours(x, mask=keep)  # keep [B, 1, 5, 5]
    dead = blocked_rows(keep[:, 0])  # [B, 5]
    close(out_o[~dead], out_t[~dead], *DEFAULT_TOL[torch.float32])
    assert (weights.sum(-1)[dead[:, None].expand(8, 7, 5)] == 0).all()


@pytest.mark.agree
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64], ids=str)
def test_copy_keeps_the_dtype_of_multihead_attention(dtype, need_weights):
    """test_multihead_attention.py, test_multihead_attention_dtype and
    test_multihead_attention_dtype_batch_first (run there on CUDA only).

    Width 128, 8 heads, sequence 10, batch 8: the output has the input's shape and dtype,
    and equals PyTorch's within the dtype's default tolerance (float16: (1e-3, 1e-3), since
    both compute with float16 weights).
    """
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(128, 8, batch_first=True).to(dtype).eval()
    ours = lessons.MultiHeadAttention.from_torch(theirs)
    q, k, v = (randn(8, 10, 128, seed=s, dtype=dtype) for s in (1, 2, 3))
    with torch.no_grad():
        out, _ = ours(q, k, v, need_weights=need_weights)
        expected, _ = theirs(q, k, v, need_weights=need_weights)
    assert out.shape == q.shape and out.dtype == dtype
    close(out, expected, *((1e-3, 1e-3) if dtype == torch.float16 else DEFAULT_TOL[dtype]))


@pytest.mark.agree
@pytest.mark.parametrize("padding_dim", [2, None])
@pytest.mark.parametrize("attn_mask_dim", [2, 3, None])
def test_copy_without_weights_equals_multihead_attention_with_boolean_masks(
    attn_mask_dim, padding_dim
):
    """test_transformers.py, TestTransformers.test_multiheadattention_fastpath_attn_mask (mask_dtype bool).

    B=2, n=4, width 8, 4 heads, ``need_weights=False``; random boolean masks ``[n, n]`` or
    ``[B * h, n, n]`` and ``key_padding_mask [B, n]``; the float32 default tolerance on the
    rows that keep a key.
    """
    B, L, D, H = 2, 4, 8, 4
    ours, theirs = ours_and_theirs(D, H, seed=3)
    x = randn(B, L, D, seed=4)
    attn_mask = {2: coin(L, L, seed=5), 3: coin(B * H, L, L, seed=5), None: None}[attn_mask_dim]
    padding = coin(B, L, seed=6) if padding_dim else None
    with torch.no_grad():
        theirs.train()  # the original's slow path
        out_t, _ = theirs(
            x, x, x, attn_mask=attn_mask, key_padding_mask=padding, need_weights=False
        )
    keep = torch.ones(B, 1, L, L, dtype=torch.bool)
    if attn_mask is not None:
        keep = keep & lessons.keep_mask(
            attn_mask.view(-1, H, L, L) if attn_mask_dim == 3 else attn_mask, "block"
        )
    if padding is not None:
        keep = keep & lessons.keep_mask(padding, "block")[:, None, None]
    keep = keep.expand(B, H, L, L)
    with torch.no_grad():
        out_o, _ = ours(x, mask=keep, need_weights=False)
    dead = blocked_rows(keep).any(1)  # [B, L]: a query some head cannot place
    close(out_o[~dead], out_t[~dead], *DEFAULT_TOL[torch.float32])


@pytest.mark.refuse
@pytest.mark.parametrize("attn_mask_dim", [2, 3])
def test_a_float_mask_gets_one_answer_whatever_need_weights(attn_mask_dim):
    """test_transformers.py, TestTransformers.test_multiheadattention_fastpath_attn_mask (mask_dtype float).

    The original's float masks are random numbers, added to the scores. Whatever
    ``need_weights``, lessons must give one answer: refuse the float mask both times (with
    a message about the mask), or add it both times as PyTorch does (then both outputs
    equal PyTorch's at the float32 default). Today: refused with weights, added without.
    """
    B, L, D, H = 2, 4, 8, 4
    ours, theirs = ours_and_theirs(D, H, seed=3)
    x = randn(B, L, D, seed=4)
    bias = randn(*((L, L) if attn_mask_dim == 2 else (B, H, L, L)), seed=5)
    theirs_mask = bias if attn_mask_dim == 2 else bias.reshape(B * H, L, L)
    with torch.no_grad():
        expected = theirs.train()(x, x, x, attn_mask=theirs_mask, need_weights=False)[0]
        answers = []
        for need_weights in (True, False):
            try:
                answers.append(ours(x, mask=bias, need_weights=need_weights)[0])
            except ValueError as error:
                assert "mask" in str(error)
                answers.append(None)
    assert (answers[0] is None) == (answers[1] is None), "one mask, two answers"
    for answer in answers:
        if answer is not None:
            close(answer, expected, *DEFAULT_TOL[torch.float32])


@pytest.mark.agree
@pytest.mark.parametrize("need_weights", [True, False])
def test_copy_of_a_module_of_ones_gives_sixteen_everywhere(need_weights):
    """test_transformers.py, TestTransformers.is_causal_kernels (with test_train_with_is_causal).

    Width 4, one head, every projection weight 1 and every bias 0, input all ones, a causal
    mask: every query's value is the sum of four ones, 4, and ``W_O`` sums four of those:
    exactly 16 everywhere, as the original asserts with ``torch.equal``.
    """
    theirs = nn.MultiheadAttention(4, 1, batch_first=True)
    with torch.no_grad():
        theirs.in_proj_weight.fill_(1.0)
        theirs.out_proj.weight.fill_(1.0)
    ours = lessons.MultiHeadAttention.from_torch(theirs)
    mask = torch.as_tensor(lessons.causal_mask(2))
    out, _ = ours(torch.ones(1, 2, 4), mask=mask, need_weights=need_weights)
    assert torch.equal(out, torch.full((1, 2, 4), 16.0))


@pytest.mark.refuse
@pytest.mark.parametrize("dropout", [0.1, 0.5])
def test_a_module_with_dropout_is_not_copied_silently(dropout):
    """test_multihead_attention.py, test_multihead_attention (the helper reads the module's
    ``dropout`` and ``training``); issue 42 measured outputs 0.23 apart in training mode.

    lessons has no dropout (chapter 9's block: "There is no dropout"), so a module built
    with dropout > 0 must be refused, or copied with a warning, naming ``dropout``.
    """
    theirs = nn.MultiheadAttention(8, 2, dropout=dropout, batch_first=True)
    with _raises_or_warns("dropout"):
        lessons.MultiHeadAttention.from_torch(theirs)


class _raises_or_warns:
    """A context that passes if its body raises a ValueError, or warns, naming ``word``."""

    def __init__(self, word):
        self.word = word

    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings(record=True)
        self._seen = self._catch.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, kind, error, trace):
        self._catch.__exit__(None, None, None)
        if kind is not None:
            assert issubclass(kind, ValueError) and self.word in str(error), error
            return True
        assert any(self.word in str(w.message) for w in self._seen), "neither refused nor warned"
        return False


@pytest.mark.agree
@pytest.mark.parametrize("which", ["self_attn", "multihead_attn"])
def test_copies_of_a_decoder_layers_attentions_equal_them(which):
    """test_transformers.py, TestTransformers.test_decoder_padding_and_src_mask_bool.

    ``nn.TransformerDecoderLayer`` (d_model=16, 2 heads, batch-first) holds two attentions:
    masked self-attention over the target (the boolean causal ``triu(ones, 1)`` and
    ``tgt_key_padding_mask`` from lengths (3, 2)) and cross-attention from the target to the
    memory (``memory_key_padding_mask``). lessons has no decoder block, but chapter 9's
    cross-attention is ``MultiHeadAttention(query, key)``: each copy equals its module on
    inputs ``[2, 3, 16]`` at the float32 default tolerance.
    """
    torch.manual_seed(0)
    layer = nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True).eval()
    theirs = getattr(layer, which)
    ours = lessons.MultiHeadAttention.from_torch(theirs)
    target, memory = randn(2, 3, 16, seed=1), randn(2, 3, 16, seed=2)
    padding = torch.arange(3)[None, :] >= torch.tensor([3, 2])[:, None]  # [2, 3], True = pad
    keep = lessons.keep_mask(padding, "block")[:, None, None]  # [2, 1, 1, 3]
    with torch.no_grad():
        if which == "self_attn":
            causal = torch.ones(3, 3, dtype=torch.bool).triu(1)
            expected, _ = theirs(target, target, target, attn_mask=causal, key_padding_mask=padding)
            out, _ = ours(target, mask=keep & lessons.keep_mask(causal, "block"))
        else:
            expected, _ = theirs(target, memory, memory, key_padding_mask=padding)
            out, _ = ours(target, memory, mask=keep)
    close(out, expected, *DEFAULT_TOL[torch.float32])
