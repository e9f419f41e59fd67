# ---
# jupyter:
#   course:
#     assumes: []
#     builds_on: the ideas it takes from the chapters in assumes, for the instructor's guide
#     key_code: []
#     outcome: do what this chapter teaches (a verb phrase for the intro's list of outcomes)
#     question: Which question does this chapter answer, in the reader's words?
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Chapter title (no number: the table of contents numbers chapters)
#
# :::{admonition} Learning objectives
# :class: tip
# After this chapter you will be able to:
# - state ... (a verb a reader can be checked on: compute, explain, show, implement)
# - compute ...
# - explain ...
# :::
#
# One paragraph: the question this chapter answers and why the reader should care.
# Terms link to the glossary the first time they appear: {term}`softmax`.

# %%
# %matplotlib inline
# Set-up: where the course's helpers are missing (Colab), install them first.
REPO = "https://github.com/self-attention-course/self-attention-step-by-step"
try:
    import lessons
except ImportError:
    # %pip install --quiet "git+{REPO}@main"
    import lessons

rng = lessons.setup()

# %%
import numpy as np

# %% [markdown]
# ## A question, then a small experiment
#
# Prose that quotes a computed number glues it: the mean is {glue:text}`example_mean:.2f`.

# %%
x = rng.normal(size=(4, 3))  # [n, d]
example_mean = lessons.glue("example_mean", x.mean())
print(f"mean = {example_mean:.4f}")

# %% mystnb={"figure": {"caption": "What to see in this figure, in one sentence."}, "image": {"alt": "Describe the figure for a reader who cannot see it."}}
import matplotlib.pyplot as plt

fig, ax = plt.subplots()
ax.plot(np.arange(4), x[:, 0], marker="o")
ax.set_xlabel("position")
ax.set_ylabel("first feature")
ax.set_title("A figure always has a title and labelled axes")
plt.show()

# %% [markdown]
# ## Recap
#
# - one line per objective, in the same order.

# %% [markdown]
# ## Exercises
#
# ### Exercise N.1: a short title
#
# The task, with the inputs named. Write your answer in the next cell, then run it:
# the last line checks it and says why when it is wrong.

# %%
answer = ...  # your code here
lessons.check_perpendicular_entry(answer, [2, 3], [5, 0], 1)

# %% mystnb={"code_prompt_hide": "Hide solution", "code_prompt_show": "Show solution"} tags=["hide-input", "hide-cell"]
# Solution
answer = -(2 * 5) / 3  # 2·5 + 3·x = 0
lessons.check_perpendicular_entry(answer, [2, 3], [5, 0], 1)

# %% [markdown]
# ### Exercise N.2: a question answered in words
#
# ```{dropdown} Solution
# A prose answer goes in a dropdown (no code to run).
# ```
