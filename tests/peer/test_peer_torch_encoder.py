"""PyTorch's tests of ``nn.TransformerEncoderLayer`` and ``nn.TransformerEncoder``
(``test/test_transformers.py``), run on ``lessons.TransformerBlock``.

The adapter copies each layer with ``TransformerBlock.from_torch`` and runs the copies one
after the other (``nn.TransformerEncoder`` stacks copies of one layer), then the encoder's
final ``LayerNorm`` if it has one (lessons has a block, not an encoder). Inputs are fed
batch-first. PyTorch's boolean ``mask`` and ``src_key_padding_mask`` block where True: they
become keep-masks with ``lessons.keep_mask(..., "block")``. Where an original builds a layer
with the default ``dropout=0.1`` and runs it in eval mode (dropout off), the adapter builds
it with ``dropout=0``: the same computation, and lessons has no dropout to copy.
"""

from __future__ import annotations

import pytest
import torch
from peer_common import DEFAULT_TOL, close, rand, randn, refused, refused_or_equal
from torch import nn

import lessons

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def cosine_weights(module):
    """The originals' deterministic weights: each parameter ``cos(0, 1, 2, ...)`` in its shape."""
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.cos(torch.arange(p.numel()).float()).view(p.shape))


def our_encoder(encoder):
    """``x, keep -> y`` through copies of ``encoder``'s layers (and its final norm, if any)."""
    blocks = [lessons.TransformerBlock.from_torch(layer) for layer in encoder.layers]

    def run(x, keep=None):
        for block in blocks:
            x = block(x, mask=keep)
        return x if encoder.norm is None else encoder.norm(x)

    return run


def batch_first(x, layer_is_batch_first):
    return x if layer_is_batch_first else x.transpose(0, 1)


# --- TestTransformers.test_transformerencoder (deterministic references) ---------------------

ENCODER_INPUT = [  # [n=5, B=2, d_model=4], sequence first as in the original
    [[0.7462, 0.6653, 0.5679, 0.4891], [0.5387, 0.1655, 0.3565, 0.0471]],
    [[0.8335, 0.2799, 0.5031, 0.2947], [0.1402, 0.0318, 0.7636, 0.1346]],
    [[0.6333, 0.9344, 0.1376, 0.9938], [0.8924, 0.2872, 0.6692, 0.2944]],
    [[0.9897, 0.6915, 0.3154, 0.1733], [0.8645, 0.3513, 0.3064, 0.0767]],
    [[0.8117, 0.2366, 0.4838, 0.7881], [0.3718, 0.4945, 0.9511, 0.0864]],
]
ONE_LAYER = [
    [[2.428589, 0.020835, -0.602055, -0.085249], [2.427987, 0.021213, -0.602496, -0.084103]],
    [[2.424689, 0.019155, -0.604793, -0.085672], [2.413863, 0.022211, -0.612486, -0.072490]],
    [[2.433774, 0.021598, -0.598343, -0.087548], [2.425104, 0.019748, -0.604515, -0.084839]],
    [[2.436185, 0.022682, -0.596625, -0.087261], [2.433556, 0.021891, -0.598509, -0.086832]],
    [[2.416246, 0.017512, -0.610712, -0.082961], [2.422901, 0.024187, -0.606178, -0.074929]],
]
ONE_LAYER_PADDED = [
    [[2.429026, 0.020793, -0.601741, -0.085642], [2.428811, 0.021445, -0.601912, -0.084252]],
    [[2.425009, 0.019155, -0.604566, -0.085899], [2.415408, 0.02249, -0.611415, -0.073]],
    [[2.434199, 0.021682, -0.598039, -0.087699], [2.42598, 0.019941, -0.603896, -0.085091]],
    [[2.436457, 0.022736, -0.59643, -0.08736], [2.434021, 0.022093, -0.598179, -0.08679]],
    [[2.416531, 0.017498, -0.610513, -0.083181], [2.4242, 0.024653, -0.605266, -0.074959]],
]
TWO_LAYERS_PADDED = [
    [[2.419051, 0.017446, -0.608738, -0.085003], [2.419102, 0.017452, -0.608703, -0.085026]],
    [[2.419043, 0.017445, -0.608744, -0.084999], [2.419052, 0.017446, -0.608738, -0.085004]],
    [[2.419067, 0.017448, -0.608727, -0.085010], [2.419098, 0.017452, -0.608706, -0.085024]],
    [[2.419072, 0.017449, -0.608724, -0.085012], [2.419119, 0.017455, -0.608691, -0.085034]],
    [[2.419019, 0.017442, -0.608761, -0.084989], [2.419075, 0.017449, -0.608722, -0.085014]],
]
TWO_LAYERS_NORM_PADDED = [
    [[1.695949, -0.357635, -0.893077, -0.445238], [1.695955, -0.357639, -0.893050, -0.445266]],
    [[1.695948, -0.357634, -0.893082, -0.445233], [1.695950, -0.357635, -0.893077, -0.445238]],
    [[1.695951, -0.357636, -0.893069, -0.445246], [1.695955, -0.357639, -0.893052, -0.445264]],
    [[1.695952, -0.357636, -0.893066, -0.445249], [1.695957, -0.357641, -0.893041, -0.445276]],
    [[1.695946, -0.357632, -0.893095, -0.445220], [1.695952, -0.357637, -0.893065, -0.445251]],
]
#: After six layers every token has converged to one row (to the references' six digits).
SIX_LAYERS_PADDED = [[[2.419101, 0.017453, -0.608703, -0.085025]] * 2] * 5
SIX_LAYERS_NORM_PADDED = [[[1.695955, -0.357639, -0.893051, -0.445265]] * 2] * 5

#: (case, layers, final norm, mask kind, reference): the original's sub-cases, in its order.
ENCODER_CASES = [
    ("one_layer", 1, False, None, ONE_LAYER),
    ("zero_src_mask", 1, False, "src_mask", ONE_LAYER),
    ("zero_padding", 1, False, "no_padding", ONE_LAYER),
    ("padding", 1, False, "padding", ONE_LAYER_PADDED),
    ("two_layers", 2, False, "padding", TWO_LAYERS_PADDED),
    ("six_layers", 6, False, "padding", SIX_LAYERS_PADDED),
    ("two_layers_norm", 2, True, "padding", TWO_LAYERS_NORM_PADDED),
    ("six_layers_norm", 6, True, "padding", SIX_LAYERS_NORM_PADDED),
]


@pytest.mark.agree
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("is_batch_first", [True, False])
@pytest.mark.parametrize(
    "case,layers,norm,mask,reference", ENCODER_CASES, ids=[c[0] for c in ENCODER_CASES]
)
def test_copied_blocks_give_the_encoders_reference_outputs(
    case, layers, norm, mask, reference, is_batch_first, training
):
    """test_transformers.py, TestTransformers.test_transformerencoder.

    float64 (the original sets the default dtype to double), d_model=4, 2 heads, d_ff=16,
    dropout 0, ReLU, the cosine weights; one, two or six layers, with or without a final
    ``LayerNorm(4)``; no mask, an all-False ``[5, 5]`` mask, an all-False padding mask, or
    padding at (0, 1), (1, 3) and (1, 4). Against the original's printed references with its
    tolerance (rtol 1e-7, atol 1e-5).
    """
    with torch.random.fork_rng():
        torch.set_default_dtype(torch.float64)
        try:
            layer = nn.TransformerEncoderLayer(4, 2, 16, 0.0, batch_first=is_batch_first)
            cosine_weights(layer)
            encoder = nn.TransformerEncoder(
                layer, layers, norm=nn.LayerNorm(4) if norm else None, enable_nested_tensor=False
            )
        finally:
            torch.set_default_dtype(torch.float32)
    encoder.train(training)
    x = torch.tensor(ENCODER_INPUT, dtype=torch.float64).transpose(0, 1)  # [B=2, n=5, 4]
    padding = torch.zeros(2, 5, dtype=torch.bool)
    if mask == "padding":
        padding[0, 1] = padding[1, 3] = padding[1, 4] = True
    keep = None
    if mask == "src_mask":
        keep = lessons.keep_mask(torch.zeros(5, 5, dtype=torch.bool), "block")
    elif mask is not None:
        keep = lessons.keep_mask(padding, "block")[:, None, None]  # [B, 1, 1, n]
    with torch.no_grad():
        ours = our_encoder(encoder)(x, keep)  # [B, n, 4]
    expected = torch.tensor(reference, dtype=torch.float64).transpose(0, 1)  # [B, n, 4]
    close(ours, expected, 1e-5, 1e-7)


@pytest.mark.agree
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("with_no_grad", [True, False])
def test_copied_blocks_give_the_reference_when_batch_equals_length(with_no_grad, training):
    """test_transformers.py, TestTransformers.test_transformerencoder_square_input.

    Batch 2 = length 2 (where a batch-first mix-up would not show in the shapes); d_model=4,
    2 heads, d_ff=16, dropout 0, two layers of cosine weights, input ``arange(16)`` as
    ``[2, 2, 4]``, mask ``[[0, 1], [0, 0]]`` (True = blocked). Against the original's
    reference at the float32 default tolerance (its ``assertEqual``).
    """
    layer = nn.TransformerEncoderLayer(4, 2, 16, 0.0, batch_first=True)
    cosine_weights(layer)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).train(training)
    x = torch.arange(16.0).reshape(2, 2, 4)
    keep = lessons.keep_mask(torch.tensor([[0, 1], [0, 0]]).bool(), "block")
    reference = torch.tensor([
        [[2.420306205749512, 0.017629241570830, -0.607857942581177, -0.085519507527351],
         [2.420306205749512, 0.017629241570830, -0.607857942581177, -0.085519507527351]],
        [[2.419836044311523, 0.017548924311996, -0.608187675476074, -0.085347734391689],
         [2.419836044311523, 0.017548924311996, -0.608187675476074, -0.085347734391689]],
    ])  # fmt: skip
    with torch.no_grad() if with_no_grad else torch.enable_grad():
        ours = our_encoder(encoder)(x, keep)
    close(ours, reference, *DEFAULT_TOL[torch.float32])


# --- the other encoder-layer cases ----------------------------------------------------------


def random_layer(d_model, nhead, d_ff, seed, **options):
    torch.manual_seed(seed)
    return nn.TransformerEncoderLayer(
        d_model, nhead, d_ff, dropout=0.0, batch_first=True, **options
    )


@pytest.mark.agree
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("nhead", [1, 4, 8])
def test_copied_block_equals_the_layer_with_an_all_false_mask(nhead, norm_first, training):
    """test_transformers.py, TestTransformers.test_transformerencoderlayer_src_mask.

    B=2, n=4, d_model=8, d_ff=32, an all-False boolean ``src_mask [4, 4]`` (nothing blocked),
    in training and eval mode; both arrangements of the norm (the original uses post-norm).
    The float32 default tolerance.
    """
    layer = random_layer(8, nhead, 32, seed=nhead, norm_first=norm_first).train(training)
    ours = lessons.TransformerBlock.from_torch(layer)
    src = rand(2, 4, 8, seed=1)
    src_mask = torch.zeros(4, 4, dtype=torch.bool)
    with torch.no_grad():
        expected = layer(src, src_mask=src_mask)
        out = ours(src, mask=lessons.keep_mask(src_mask, "block"))
    close(out, expected, *DEFAULT_TOL[torch.float32])


@pytest.mark.refuse
def test_a_float_causal_mask_is_refused_naming_the_conversion():
    """test_transformers.py, TestTransformers.test_encoder_is_causal (the mask).

    The original's mask is ``nn.Transformer.generate_square_subsequent_mask(5)``: 0 on and
    below the diagonal, -inf above, float. The block takes keep-masks: refused, naming the
    conversion ``mask == 0`` (chapter 6's additive form); or, should lessons come to take
    additive masks, added as PyTorch adds it (then equal to the layer's output).
    """
    layer = random_layer(3, 1, 6, seed=0).eval()
    block = lessons.TransformerBlock.from_torch(layer)
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    x = randn(1, 5, 3, seed=1)
    with torch.no_grad():
        refused_or_equal(
            lambda: block(x, mask=mask),
            lambda: layer(x, src_mask=mask),
            DEFAULT_TOL[torch.float32],
            "mask == 0",
        )


@pytest.mark.agree
def test_copied_block_with_the_causal_mask_converted_equals_the_layer():
    """test_transformers.py, TestTransformers.test_encoder_is_causal (the values).

    d_model=3, 1 head, d_ff=6, x ``[1, 5, 3]``; PyTorch given the float causal mask (and
    ``is_causal=True``), lessons the same mask as a keep-mask (``keep_mask(mask,
    "additive")``, equal to ``causal_mask(5)``). The float32 default tolerance.
    """
    layer = random_layer(3, 1, 6, seed=0).eval()
    block = lessons.TransformerBlock.from_torch(layer)
    x = randn(1, 5, 3, seed=1)
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    keep = lessons.keep_mask(mask, "additive")
    assert torch.equal(keep, torch.as_tensor(lessons.causal_mask(5)))
    with torch.no_grad():
        expected = layer(x, src_mask=mask, is_causal=True)
        out = block(x, mask=keep)
    close(out, expected, *DEFAULT_TOL[torch.float32])


@pytest.mark.agree
def test_a_layer_without_biases_is_copied_and_agrees():
    """test_transformers.py, TestTransformers.test_transformer_bias_is_none.

    B=2, n=3, d_model=8, 4 heads, ``bias=False`` (no bias in attention, feed-forward or
    norms), which PyTorch runs. The copy must run and agree at the float32 default
    tolerance (or refuse with a ValueError naming ``bias``; issue 42 found a TypeError from torch).
    """
    layer = nn.TransformerEncoderLayer(8, 4, bias=False, dropout=0.0, batch_first=True).eval()
    x = randn(2, 3, 8, seed=1)
    try:
        block = lessons.TransformerBlock.from_torch(layer)
    except ValueError as error:
        assert "bias" in str(error)
        return
    with torch.no_grad():
        close(block(x), layer(x), *DEFAULT_TOL[torch.float32])


FASTPATH_INPUTS = [  # (B, n, padding per sequence: 1 = padded), the original's first two pairs
    (3, 2, [[0, 1], [0, 1], [1, 1]]),
    (2, 100, [[0] * 98 + [1] * 2, [0] * 90 + [1] * 10]),
]


@pytest.mark.agree
@pytest.mark.parametrize("d_model", [12, 256])
@pytest.mark.parametrize("pair", range(2))
def test_copied_encoder_equals_the_encoder_on_the_real_tokens(pair, d_model):
    """test_transformers.py, TestTransformers.test_transformerencoder_fastpath.

    Two layers, 4 heads, d_ff = d_model, the original's padding patterns (a whole padded
    sequence included); compared on the real tokens only, as the original does (it zeroes
    the padded ones). Cut for speed: the first two of its five inputs (not the 1024-long
    ones). The float32 default tolerance.
    """
    B, n, pattern = FASTPATH_INPUTS[pair]
    torch.manual_seed(1234)
    layer = nn.TransformerEncoderLayer(d_model, 4, d_model, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    x = rand(B, n, d_model, seed=pair)
    padding = torch.tensor(pattern, dtype=torch.bool)
    with torch.no_grad():
        expected = encoder(x, src_key_padding_mask=padding)
        ours = our_encoder(encoder)(x, lessons.keep_mask(padding, "block")[:, None, None])
    real = ~padding
    rows = real & real.any(-1, keepdim=True)  # a wholly padded sequence has no real token
    close(ours[rows], expected[rows], *DEFAULT_TOL[torch.float32])


@pytest.mark.agree
def test_copied_encoder_with_causal_and_padding_masks_equals_the_encoder():
    """test_transformers.py, TestTransformers.test_encoder_padding_and_src_mask_bool.

    d_model=16, 2 heads, d_ff=32, two layers and a final ``LayerNorm(16)``, x ``[2, 3, 16]``,
    the boolean causal mask ``triu(ones, 1)`` and padding from lengths (3, 2); the original
    checks nothing is logged, here the outputs agree at the float32 default tolerance.
    """
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2, nn.LayerNorm(16), enable_nested_tensor=False)
    x = randn(2, 3, 16, seed=1)
    src_mask = torch.ones(3, 3, dtype=torch.bool).triu_(diagonal=1)
    padding = torch.arange(3)[None, :] >= torch.tensor([3, 2])[:, None]
    keep = lessons.keep_mask(src_mask, "block") & lessons.keep_mask(padding, "block")[:, None, None]
    with torch.no_grad():
        expected = encoder(x, mask=src_mask, src_key_padding_mask=padding)
        ours = our_encoder(encoder)(x, keep)
    close(ours, expected, *DEFAULT_TOL[torch.float32])


@pytest.mark.refuse
def test_a_gelu_layer_is_refused_naming_relu():
    """test_transformers.py, TestTransformers.test_train_with_pad_and_catch_error (its layer).

    The original trains a layer with ``activation="gelu"``; chapter 9's block hard-codes
    ReLU: refused, naming the activation it needs.
    """
    layer = nn.TransformerEncoderLayer(2, 2, 4, dropout=0.0, activation="gelu", batch_first=True)
    refused(lambda: lessons.TransformerBlock.from_torch(layer), "activation='relu'")


@pytest.mark.documented
def test_the_block_has_no_dropout_so_training_mode_changes_nothing():
    """test_transformers.py, TestTransformers.test_train_with_pad_and_catch_error (train vs eval).

    The original compares a layer's training and eval outputs. ``TransformerBlock``'s
    docstring (chapter 9): "There is no dropout: the block equals PyTorch's with
    dropout=0". So the block holds no ``nn.Dropout`` and gives the same output in both modes.
    """
    block = lessons.TransformerBlock(8, 2, 16)
    x = randn(1, 4, 8, seed=1)
    assert not any(isinstance(m, nn.Dropout) for m in block.modules())
    assert torch.equal(block.train()(x), block.eval()(x))


@pytest.mark.agree
def test_copied_block_with_a_padding_mask_ignores_the_padded_inputs():
    """test_transformers.py, TestTransformers.test_train_with_pad_and_catch_error (its input).

    d_model=2, 2 heads, d_ff=4, input ``[1, 4, 2]``: two random tokens then two zero ones,
    with the original's ``src_key_padding_mask [[1, 1, 0, 0]]`` (True = padded, so the two
    random tokens are the padding). The copy equals the layer (float32 default tolerance),
    and changing the padded tokens leaves the other tokens' outputs unchanged.
    """
    layer = random_layer(2, 2, 4, seed=3)
    block = lessons.TransformerBlock.from_torch(layer)
    padding = torch.tensor([[True, True, False, False]])
    keep = lessons.keep_mask(padding, "block")[:, None, None]  # [1, 1, 1, 4]
    x = torch.cat([randn(1, 2, 2, seed=4), torch.zeros(1, 2, 2)], dim=1)
    changed = x.clone()
    changed[:, :2] = randn(1, 2, 2, seed=5)
    with torch.no_grad():
        ours, ours_changed = block(x, mask=keep), block(changed, mask=keep)
        expected = layer(x, src_key_padding_mask=padding)
    close(ours, expected, *DEFAULT_TOL[torch.float32])
    close(ours_changed[:, 2:], ours[:, 2:], *DEFAULT_TOL[torch.float32])


@pytest.mark.agree
@pytest.mark.parametrize("nhead", [3, 4])
def test_the_copys_attention_gives_what_the_layers_attention_gives(nhead):
    """test_transformers.py, TestTransformers.test_transformerencoderlayer_no_fastpath_with_hooks.

    d_model=12, d_ff=12, B=2, n=4, eval mode; the original reads the layer's self-attention
    output with a forward hook. The copy's ``attention`` gives that output (float32 default
    tolerance), and so does the whole block.
    """
    layer = random_layer(12, nhead, 12, seed=nhead).eval()
    block = lessons.TransformerBlock.from_torch(layer)
    src = rand(2, 4, 12, seed=1)
    seen = []
    handle = layer.self_attn.register_forward_hook(lambda m, i, out: seen.append(out[0].detach()))
    with torch.inference_mode():
        expected = layer(src)
    handle.remove()
    with torch.no_grad():
        close(block.attention(src)[0], seen[0], *DEFAULT_TOL[torch.float32])
        close(block(src), expected, *DEFAULT_TOL[torch.float32])


@pytest.mark.agree
@pytest.mark.parametrize("training", [True, False])
def test_a_subclass_of_the_layer_is_copied_and_agrees(training):
    """test_transformers.py, TestTransformers.test_transformerencoderlayer_subclass.

    A subclass of ``nn.TransformerEncoderLayer`` that changes nothing (d_model=8, 4 heads,
    d_ff=32), an all-False ``src_mask [4, 4]``, B=2, n=4: ``from_torch`` takes it as the
    layer it is, and the copy agrees at the float32 default tolerance.
    """

    class MyCustomLayer(nn.TransformerEncoderLayer):
        pass

    torch.manual_seed(42)
    layer = MyCustomLayer(8, 4, 32, dropout=0.0, batch_first=True).train(training)
    block = lessons.TransformerBlock.from_torch(layer)
    src = rand(2, 4, 8, seed=2)
    src_mask = torch.zeros(4, 4, dtype=torch.bool)
    with torch.no_grad():
        expected = layer(src, src_mask=src_mask)
        close(
            block(src, mask=lessons.keep_mask(src_mask, "block")),
            expected,
            *DEFAULT_TOL[torch.float32],
        )
