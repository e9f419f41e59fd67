"""lessons.lm (chapter 12): the shipped checkpoints, the model's forward, the head detectors."""

from __future__ import annotations

import math
from fnmatch import fnmatch
from importlib import resources

import numpy as np
import pytest
import tomllib
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st
from repo_paths import ROOT

import lessons.lm as lm
from lessons.lm import detectors
from lessons.lm.circuits import copying_score, head_matrices, k_composition, random_k_compositions
from lessons.lm.model import CharLM, LMConfig
from lessons.lm.train import insert_repeat, make_optimizer, sample_batch, train_step

WEIGHTS = resources.files("lessons").joinpath("lm_weights")
MANIFEST = lm.manifest()
STEPS = lm.checkpoints()


# --- the shipped checkpoints -------------------------------------------------------------


def test_checkpoints_are_in_order_start_at_step_0_and_end_at_the_last_step():
    assert STEPS == sorted(STEPS) and len(set(STEPS)) == len(STEPS)
    assert STEPS[0] == 0 and STEPS[-1] == MANIFEST["steps"]
    assert len(STEPS) >= 8


def test_the_weights_folder_is_under_4_mb_and_holds_only_what_the_manifest_lists():
    files = {p.name: p for p in WEIGHTS.iterdir() if p.is_file()}
    assert sum(p.stat().st_size for p in files.values()) < 4_000_000
    listed = {e["file"] for e in MANIFEST["checkpoints"]}
    assert {n for n in files if n.endswith(".npz")} == listed


def test_pip_install_ships_every_file_of_the_weights_folder():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "lessons.lm" in pyproject["tool"]["setuptools"]["packages"]
    patterns = pyproject["tool"]["setuptools"]["package-data"]["lessons"]
    for path in (ROOT / "lessons" / "lm_weights").iterdir():
        assert any(fnmatch(f"lm_weights/{path.name}", p) for p in patterns), path.name


def test_checkpoints_are_stored_in_float16_with_the_parameter_count_of_the_manifest():
    with np.load(WEIGHTS.joinpath(MANIFEST["checkpoints"][-1]["file"])) as stored:
        assert {stored[k].dtype for k in stored.files} == {np.dtype(np.float16)}
        assert sum(stored[k].size for k in stored.files) == MANIFEST["parameters"]
    model = lm.load(STEPS[-1])
    assert sum(p.numel() for p in model.parameters()) == MANIFEST["parameters"]


def test_stored_weights_are_the_models_numbers_in_float16_and_copies():
    stored = lm.stored_weights(STEPS[-1])
    state = lm.load(STEPS[-1]).state_dict()
    assert sorted(stored) == sorted(state)
    for name, array in stored.items():
        assert array.dtype == np.float16
        assert np.array_equal(array.astype(np.float32), state[name].numpy()), name
    stored["embed.weight"][:] = 0  # a reader's edit changes no later load
    assert lm.stored_weights(STEPS[-1])["embed.weight"].any()
    with pytest.raises(ValueError, match="stored checkpoints"):
        lm.stored_weights(STEPS[-1] + 1)


@pytest.mark.parametrize("step", STEPS)
def test_every_checkpoint_gives_the_manifests_validation_losses(step):
    entry = next(e for e in MANIFEST["checkpoints"] if e["step"] == step)
    model = lm.load(step)
    passages = lm.eval_passages()
    for name, expected in entry["val_loss_by_passage"].items():
        assert lm.text_loss(passages[name], model) == pytest.approx(expected, abs=1e-4), name
    counts = {k: len(v) - 1 for k, v in passages.items()}
    pooled = sum(entry["val_loss_by_passage"][k] * c for k, c in counts.items()) / sum(
        counts.values()
    )
    assert pooled == pytest.approx(entry["val_loss"], abs=1e-4)


def test_training_loss_falls_between_the_first_and_the_last_checkpoint():
    first, last = MANIFEST["checkpoints"][0], MANIFEST["checkpoints"][-1]
    assert first["val_loss"] == pytest.approx(math.log(len(lm.VOCAB)), abs=0.1)  # uniform guess
    assert last["val_loss"] < first["val_loss"] - 1.5
    assert last["heldout_loss"] < first["heldout_loss"] - 1.5


@pytest.mark.slow  # trains the model for its first steps
def test_the_first_training_steps_reproduce_the_manifest():
    corpus = lm.stdlib_corpus()
    if corpus.sha256 != MANIFEST["corpus"]["sha256"]:
        pytest.skip(
            f"this Python's standard library ({corpus.source}) is not the text the weights were "
            f"trained on (Python {MANIFEST['corpus']['python']}): the corpus hash differs"
        )
    aug = MANIFEST["augmentation"]
    firsts = MANIFEST["first_losses"]
    assert len(firsts) >= 5 and aug["plain_steps"] >= len(firsts)
    config = LMConfig(**MANIFEST["config"])
    model = CharLM(config, seed=MANIFEST["seed"])
    optimizer = make_optimizer(model, lr=MANIFEST["optimizer"]["lr"])
    rng = np.random.default_rng(MANIFEST["seed"])
    data = lm.encode(corpus.train)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        losses = [
            train_step(model, optimizer, *sample_batch(data, MANIFEST["batch"], config.n_ctx, rng))
            for _ in firsts
        ]
    finally:
        torch.set_num_threads(threads)
    np.testing.assert_allclose(losses, firsts, rtol=0, atol=1e-5)


def test_the_manifest_states_the_data_and_its_augmentation():
    corpus, aug = MANIFEST["corpus"], MANIFEST["augmentation"]
    assert len(corpus["sha256"]) == 64 and corpus["train_chars"] > 1_000_000
    assert not set(corpus["train_files"]) & set(corpus["heldout_files"])
    assert "repeat" in aug["description"] and aug["repeat_rows"] <= MANIFEST["batch"]
    assert MANIFEST["vocab"] == lm.VOCAB


def test_the_last_checkpoint_has_an_induction_head_that_makes_repeats_cheap():
    """What chapter 12 reads from the shipped weights: a layer-1 induction head that needs layer 0."""
    model = lm.load(STEPS[-1])
    scores = lm.head_scores(model)
    score, layer, head = lm.best_head(scores["induction"])
    assert layer == 1 and score >= lm.INDUCTION_THRESHOLD
    assert lm.best_head(lm.head_scores(lm.load(STEPS[0]))["induction"])[0] < 0.05
    text = lm.eval_passages()["repeat"]
    half = len(text) // 2

    def copies(blocked=None):
        losses = lm.token_losses(text, model, blocked=blocked)
        return losses[: half - 1].mean(), losses[half:].mean()  # first copy, second copy

    first, second = copies()
    assert second < first - 1.0  # the second copy is far cheaper ...
    first, second = copies({(layer, head)})
    assert second > first - 0.5  # ... until the induction head is blocked
    layer0 = {(0, h) for h in range(model.config.num_heads)}
    repeated = lm.induction_text(40)
    blocked = lm.forward(repeated, model, blocked=layer0)["attention"][layer, head]
    assert lm.induction_score(blocked, 40) < 0.1  # layer 0 builds the pattern it follows


# --- the model -----------------------------------------------------------------------------


def _direct_forward(model: CharLM, ids: torch.Tensor):
    """The model written again from its weights, attention by torch's fused kernel."""
    cfg, n = model.config, ids.shape[-1]
    h, d_k = cfg.num_heads, cfg.d_model // cfg.num_heads
    x = model.embed.weight[ids] + model.pos.weight[:n]  # [1, n, d_model]
    weights = []
    for norm, attn in zip(model.norms, model.attns, strict=True):
        y = F.layer_norm(x, (cfg.d_model,), norm.weight, norm.bias)  # [1, n, d_model]
        q, k, v = (y @ attn.in_proj.weight.T).split(cfg.d_model, dim=-1)  # 3 x [1, n, d_model]
        q, k, v = (t.view(1, n, h, d_k).transpose(1, 2) for t in (q, k, v))  # [1, h, n, d_k]
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # [1, h, n, d_k]
        eye = torch.eye(n).expand(1, h, n, n)  # values = one-hot rows, so the output is A
        weights.append(F.scaled_dot_product_attention(q, k, eye, is_causal=True)[0])
        x = x + out.transpose(1, 2).reshape(1, n, cfg.d_model) @ attn.out_proj.weight.T
    y = F.layer_norm(x, (cfg.d_model,), model.final_norm.weight, model.final_norm.bias)
    return model.unembed(y)[0], torch.stack(weights)  # [n, vocab], [layers, h, n, n]


@pytest.mark.parametrize("step", [STEPS[0], STEPS[len(STEPS) // 2], STEPS[-1]])
def test_forward_agrees_with_scaled_dot_product_attention(step):
    text = lm.eval_passages()["python_functions"][:100]
    out = lm.forward(text, step)
    model = lm.load(step)
    with torch.no_grad():
        logits, attention = _direct_forward(model, torch.from_numpy(lm.encode(text))[None])
    assert out["attention"].shape == (2, 4, 100, 100) and out["logits"].shape == (100, 96)
    np.testing.assert_allclose(out["attention"], attention.numpy(), atol=1e-5)
    np.testing.assert_allclose(out["logits"], logits.numpy(), atol=1e-4)


def test_blocking_every_head_leaves_the_direct_path_embedding_to_unembedding():
    model = lm.load(STEPS[-1])
    text = "def f(x):\n    return x"
    ids = torch.from_numpy(lm.encode(text))
    all_heads = {(layer, head) for layer in range(2) for head in range(4)}
    blocked = lm.forward(text, model, blocked=all_heads)["logits"]
    with torch.no_grad():
        x = model.embed(ids) + model.pos.weight[: len(ids)]  # [n, d_model]
        direct = model.unembed(model.final_norm(x)).numpy()  # [n, vocab]
    np.testing.assert_allclose(blocked, direct, atol=1e-5)
    assert not np.allclose(lm.forward(text, model)["logits"], direct, atol=1e-3)


LAYER_0 = {(0, head) for head in range(4)}


def test_a_path_ablation_of_no_head_is_the_plain_forward():
    text = "def f(x):\n    return x"
    plain = lm.forward(text, STEPS[-1])
    out = lm.forward(text, STEPS[-1], key_blocked=set(), query_blocked=set())
    for name in ("attention", "logits"):
        np.testing.assert_array_equal(out[name], plain[name])


def test_removing_layer_0_from_keys_and_queries_gives_layer_1_the_pattern_of_blocking_it():
    # Attention weights depend only on queries and keys, so layer 1's pattern matches
    # the full ablation; the values (and so the logits) still carry layer 0's output.
    text = "for key in keys: print(key)\nfor key in keys:"
    model = lm.load(STEPS[-1])
    path = lm.forward(text, model, key_blocked=LAYER_0, query_blocked=LAYER_0)
    full = lm.forward(text, model, blocked=LAYER_0)
    plain = lm.forward(text, model)
    np.testing.assert_allclose(path["attention"][1], full["attention"][1], atol=1e-5)
    np.testing.assert_array_equal(path["attention"][0], plain["attention"][0])
    assert not np.allclose(path["logits"], full["logits"], atol=1e-3)


def test_a_path_ablation_of_the_last_layer_changes_nothing_and_keys_differ_from_queries():
    text = "abcabcabc"
    model = lm.load(STEPS[-1])
    plain = lm.forward(text, model)
    last = lm.forward(text, model, key_blocked={(1, 3)}, query_blocked={(1, 0)})
    np.testing.assert_array_equal(last["logits"], plain["logits"])
    keys = lm.forward(text, model, key_blocked=LAYER_0)["attention"][1]
    queries = lm.forward(text, model, query_blocked=LAYER_0)["attention"][1]
    assert not np.allclose(keys, queries, atol=1e-3)


READERS_1 = {(1, head) for head in range(4)}


def test_a_path_ablation_aimed_at_no_head_or_removing_nothing_is_the_plain_loss():
    text = "def f(x):\n    return x + x"
    plain = lm.token_losses(text, STEPS[-1])
    np.testing.assert_allclose(lm.path_losses(text, STEPS[-1], set(), READERS_1), plain, atol=1e-5)
    np.testing.assert_allclose(lm.path_losses(text, STEPS[-1], LAYER_0, set()), plain, atol=1e-5)


@pytest.mark.parametrize("path", ["key", "query"])
def test_a_path_ablation_aimed_at_every_later_head_is_the_models_own(path):
    text = "for key in keys: print(key)\nfor key in keys:"
    model = lm.load(STEPS[-1])
    removed = {(0, 0), (0, 2)}
    ids = torch.from_numpy(lm.encode(text))[None]  # [1, n]
    with torch.no_grad():
        logits, _ = model(ids, **{f"{path}_blocked": removed})  # [1, n, vocab]
    expected = -F.log_softmax(logits[0, :-1].double(), -1)[torch.arange(len(text) - 1), ids[0, 1:]]
    ours = lm.path_losses(text, model, removed, READERS_1, path=path)
    np.testing.assert_allclose(ours, expected.numpy(), atol=1e-4)


def test_a_path_ablation_aimed_at_one_head_differs_from_aiming_at_all_and_batches():
    texts = ["for key in keys: print(key)\nfor key in", "x = [1, 2, 3]\nx = [1, 2, 3]\nx = [1, 2,"]
    model = lm.load(STEPS[-1])
    removed = {(0, 0), (0, 2)}
    one = lm.path_losses(texts, model, removed, {(1, 3)})
    every = lm.path_losses(texts, model, removed, READERS_1)
    plain = lm.token_losses(texts, model)
    assert one.shape == plain.shape == (2, len(texts[0]) - 1)
    assert not np.allclose(one, every, atol=1e-3) and not np.allclose(one, plain, atol=1e-3)
    for row, text in zip(one, texts, strict=True):
        np.testing.assert_allclose(row, lm.path_losses(text, model, removed, {(1, 3)}), atol=1e-5)
    # values: head 1.3's values without layer 0 change the loss, its pattern stays
    assert not np.allclose(
        lm.path_losses(texts, model, removed, {(1, 3)}, "value"), plain, atol=1e-3
    )


@pytest.mark.parametrize("layer, head", [(0, 2), (1, 3)])
def test_one_heads_attention_and_the_logits_match_the_full_forward(layer, head):
    texts = [
        "for key in keys: print(key)\nfor key in",
        "The kettle hums; the kettle hu"[:38].ljust(38),
    ]
    full = lm.forward(texts, STEPS[-1])
    one = lm.head_attention(texts, STEPS[-1], layer, head)
    np.testing.assert_allclose(one["attention"], full["attention"][:, layer, head], atol=1e-5)
    np.testing.assert_allclose(one["logits"], full["logits"], atol=1e-4)
    single = lm.head_attention(texts[0], STEPS[-1], layer, head)
    assert single["attention"].shape == (38, 38) and single["logits"].shape == (38, 96)
    with pytest.raises(ValueError, match="layer must be"):
        lm.head_attention(texts[0], STEPS[-1], 2, 0)


def test_path_losses_refuse_a_reader_below_the_removed_heads_or_an_unknown_path():
    with pytest.raises(ValueError, match="later layer"):
        lm.path_losses("abcabc", STEPS[-1], {(1, 0)}, {(1, 3)})
    with pytest.raises(ValueError, match="path must be"):
        lm.path_losses("abcabc", STEPS[-1], {(0, 0)}, {(1, 3)}, path="keys")


def test_a_batch_of_texts_gives_the_losses_and_attention_of_each_text():
    texts = ["for i in range(3):", "The kettle hums...", "x = [1, 2, 3]\nx[0]"]
    batch = lm.token_losses(texts, STEPS[-1], blocked={(1, 3)})
    assert batch.shape == (3, len(texts[0]) - 1)
    for row, text in zip(batch, texts, strict=True):
        np.testing.assert_allclose(row, lm.token_losses(text, STEPS[-1], {(1, 3)}), atol=1e-6)
    with pytest.raises(ValueError, match="one length"):
        lm.token_losses(["ab", "abc"], STEPS[-1])
    out = lm.forward(texts, STEPS[-1])
    assert out["attention"].shape == (3, 2, 4, len(texts[0]), len(texts[0]))
    for k, text in enumerate(texts):
        one = lm.forward(text, STEPS[-1])
        np.testing.assert_allclose(out["attention"][k], one["attention"], atol=1e-6)
        np.testing.assert_allclose(out["logits"][k], one["logits"], atol=1e-5)


def test_attention_rows_are_causal_and_sum_to_one():
    A = lm.forward("Attention reads the past.", STEPS[-1])["attention"].astype(np.float64)
    np.testing.assert_allclose(A.sum(-1), 1.0, atol=1e-5)
    assert np.all(np.triu(A, k=1) == 0)


def test_token_losses_are_the_cross_entropy_of_the_logits():
    text = "for i in range(10):"
    out = lm.forward(text, STEPS[-1])
    losses = lm.token_losses(text, STEPS[-1])
    expected = F.cross_entropy(
        torch.from_numpy(out["logits"][:-1]).double(),
        torch.from_numpy(lm.encode(text)[1:]),
        reduction="none",
    )
    # token_losses runs the fused attention kernel: the same maths, float32 rounding apart
    np.testing.assert_allclose(losses, expected.numpy(), atol=1e-5)


@pytest.mark.parametrize(
    ("text", "where"),
    [("caf\u00e9", "index 3"), ("a\tb", "index 1"), ("\U0001f600", "index 0")],
)
def test_text_outside_the_vocabulary_raises_naming_the_character(text, where):
    with pytest.raises(ValueError, match=where):
        lm.encode(text)
    with pytest.raises(ValueError, match="vocabulary"):
        lm.forward(text, STEPS[0])


def test_bad_requests_raise_value_errors_that_say_what_to_change():
    with pytest.raises(ValueError, match="stored checkpoints"):
        lm.load(STEPS[-1] + 1)
    with pytest.raises(ValueError, match="n_ctx"):
        lm.forward("x" * 200, STEPS[0])
    with pytest.raises(ValueError, match="non-empty"):
        lm.encode("")
    with pytest.raises(ValueError, match="ids must lie"):
        lm.decode([0, 96])


@given(st.text(min_size=1, max_size=30))
def test_encode_names_the_first_character_outside_the_vocabulary(text):
    outside = [i for i, ch in enumerate(text) if ch not in lm.VOCAB]
    if not outside:
        assert lm.decode(lm.encode(text)) == text
        return
    with pytest.raises(ValueError, match=f"at index {outside[0]},"):
        lm.encode(text)


@given(st.text(alphabet=lm.VOCAB, min_size=1, max_size=50))
def test_decode_undoes_encode(text):
    ids = lm.encode(text)
    assert ids.dtype == np.int64 and ids.min() >= 0 and ids.max() < 96
    assert lm.decode(ids) == text


def test_an_inserted_repeat_copies_a_real_span_later_in_the_same_row():
    row = np.arange(100)
    for seed in range(20):
        rng = np.random.default_rng(seed)
        out = insert_repeat(row, 30, rng)
        changed = np.flatnonzero(out != row)
        t = changed[0]
        s = out[t]  # row holds its own index, so the copied value says where it came from
        np.testing.assert_array_equal(out[t : t + 30], row[s : s + 30])
        assert s + 30 <= t and len(changed) == 30
    with pytest.raises(ValueError, match="too long"):
        insert_repeat(row, 51, np.random.default_rng(0))


# --- the detectors, on hand-made patterns --------------------------------------------------


def _pattern(n: int, key_of) -> np.ndarray:
    """An ``[n, n]`` attention pattern with all of row ``i``'s weight on ``key_of(i)``."""
    A = np.zeros((n, n))
    for i in range(n):
        A[i, key_of(i)] = 1.0
    return A


@given(st.integers(2, 60))
def test_each_detector_scores_its_own_pattern_1_and_the_others_0(n):
    prev = _pattern(n, lambda i: max(i - 1, 0))
    first = _pattern(n, lambda i: 0)
    current = np.eye(n)
    assert detectors.previous_token_score(prev) == 1.0
    assert detectors.first_token_score(first) == 1.0
    assert detectors.current_token_score(current) == 1.0
    assert detectors.previous_token_score(current) == 0.0
    assert detectors.first_token_score(current) == 0.0
    assert detectors.current_token_score(prev) == 0.0
    assert detectors.current_token_score(first) == 0.0


@given(st.integers(3, 40))
def test_the_induction_score_is_1_on_the_induction_stripe_and_0_on_a_previous_token_head(L):
    n = 2 * L + 1
    induction = _pattern(n, lambda i: i - L + 1 if i > L else i)
    prev = _pattern(n, lambda i: max(i - 1, 0))
    assert detectors.induction_score(induction, L) == 1.0
    assert detectors.induction_score(prev, L) == 0.0
    assert detectors.induction_score(np.eye(n), L) == 0.0


@given(st.integers(2, 30), st.integers(0, 2**31 - 1))
def test_scores_of_a_stack_are_the_scores_of_each_head(n, seed):
    rng = np.random.default_rng(seed)
    A = np.tril(rng.random((2, 3, n, n)))
    A /= A.sum(-1, keepdims=True)  # [2, 3, n, n], causal, rows sum to 1
    for score in (
        detectors.previous_token_score,
        detectors.first_token_score,
        detectors.current_token_score,
    ):
        table = score(A)
        assert table.shape == (2, 3) and np.all((table >= 0) & (table <= 1))
        assert table[1, 2] == pytest.approx(score(A[1, 2]))


@given(st.integers(1, 20), st.integers(0, 2**31 - 1))
def test_the_detection_score_is_the_share_of_weight_inside_the_pattern(n, seed):
    rng = np.random.default_rng(seed)
    A = np.tril(rng.random((n, n)) + 0.01)
    A /= A.sum(-1, keepdims=True)
    P = (rng.random((n, n)) < 0.5).astype(float)
    assert detectors.detection_score(A, np.ones((n, n))) == pytest.approx(1.0)
    assert detectors.detection_score(A, np.zeros((n, n))) == 0.0
    assert detectors.detection_score(A, P) + detectors.detection_score(A, 1 - P) == pytest.approx(1)
    if n >= 2:
        prev = _pattern(n, lambda i: max(i - 1, 0))
        stripe = np.eye(n, k=-1)
        assert detectors.detection_score(prev, stripe) == pytest.approx((n - 1) / n)


@given(st.integers(2, 30), st.integers(0, 2**31 - 1))
def test_weights_by_offset_start_with_the_current_and_previous_token_scores(n, seed):
    rng = np.random.default_rng(seed)
    A = np.tril(rng.random((2, n, n)))
    A /= A.sum(-1, keepdims=True)  # [2, n, n], causal, rows sum to 1
    k = min(3, n - 1)
    profile = detectors.offset_weights(A, k)  # [2, k + 1]
    assert profile.shape == (2, k + 1)
    np.testing.assert_allclose(profile[:, 0], detectors.current_token_score(A))
    np.testing.assert_allclose(profile[:, 1], detectors.previous_token_score(A))
    np.testing.assert_allclose(profile[1, k], np.mean([A[1, i, i - k] for i in range(k, n)]))
    two_back = _pattern(n, lambda i: max(i - 2, 0))  # reads i - 2 (row 1: i - 1)
    if n >= 3:
        assert detectors.offset_weights(two_back, 2)[2] == 1.0
        assert detectors.offset_weights(two_back, 2)[1] == pytest.approx(1 / (n - 1))


def test_detectors_refuse_shapes_that_do_not_fit():
    with pytest.raises(ValueError, match="square"):
        detectors.previous_token_score(np.ones((3, 4)))
    with pytest.raises(ValueError, match="2L \\+ 1"):
        detectors.induction_score(np.eye(10), 4)
    with pytest.raises(ValueError, match="P must have shape"):
        detectors.detection_score(np.eye(3), np.eye(4))
    with pytest.raises(ValueError, match="early"):
        detectors.in_context_learning(np.ones(10), 5, 5)
    with pytest.raises(ValueError, match="max_offset"):
        detectors.offset_weights(np.eye(4), 4)


def test_in_context_learning_is_late_loss_minus_early_loss():
    losses = np.array([[3.0, 2.5, 2.0, 1.0], [2.0, 2.5, 1.0, 0.0]])
    assert detectors.in_context_learning(losses, 0, 3) == pytest.approx(-2.0)
    assert detectors.in_context_learning(losses[0], 1, 2) == pytest.approx(-0.5)


@given(st.integers(2, 63), st.integers(0, 1000))
def test_the_induction_text_is_a_start_token_then_one_random_string_twice(L, seed):
    text = detectors.induction_text(L, seed)
    assert len(text) == 2 * L + 1 and text[0] == "\n"
    assert text[1 : L + 1] == text[L + 1 :] and "\n" not in text[1:]
    assert detectors.induction_text(L, seed) == text


# --- circuits --------------------------------------------------------------------------------


def _tiny_copier(sign: float) -> CharLM:
    """A 2-layer model whose head (0, 0) writes back what it reads (sign +1) or its negative."""
    model = CharLM(LMConfig(vocab=8, n_ctx=4, d_model=8, num_heads=2), seed=0)
    with torch.no_grad():
        model.embed.weight.copy_(torch.eye(8))
        model.unembed.weight.copy_(torch.eye(8))
        w = model.attns[0].in_proj.weight  # [24, 8]: rows Q, K, V
        w[16:24] = torch.eye(8)  # W_V = I
        model.attns[0].out_proj.weight.copy_(sign * torch.eye(8))  # W_O = +-I
    return model


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_the_copying_score_is_plus_1_for_a_copier_and_minus_1_for_a_suppressor(sign):
    assert copying_score(_tiny_copier(sign), 0, 0) == pytest.approx(sign)


def test_k_composition_is_0_when_the_keys_ignore_what_the_first_head_writes():
    model = _tiny_copier(1.0)
    with torch.no_grad():
        w = model.attns[1].in_proj.weight  # layer 1 reads keys only from dims 4..7 ...
        w[:16] = 0.0
        w[0:4, 0:4] = torch.eye(4)  # W_Q (head 0) reads dims 0..3
        w[8:12, 0:4] = torch.eye(4)  # W_K (head 0) reads dims 0..3
        model.attns[0].out_proj.weight.zero_()
        model.attns[0].out_proj.weight[4:, 4:] = torch.eye(4)  # ... head (0, 1) writes 4..7
    assert k_composition(model, (0, 1), (1, 0)) == pytest.approx(0.0, abs=1e-12)
    assert head_matrices(model, 1, 0)["W_QK"].shape == (8, 8)
    assert 0 < random_k_compositions(8, 4, samples=20).mean() < 1
    with pytest.raises(ValueError, match="earlier layer"):
        k_composition(model, (1, 0), (0, 0))
