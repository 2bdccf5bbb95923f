"""
Trains the reader's Vietnamese text-line recogniser on generated lines (generate.py) and exports it to ONNX.

A small CRNN (2-D convolutions to a 1-pixel-tall feature row, then 1-D convolutions along it, CTC over CHARSET) on 32-pixel-tall
gray lines; the CPU only, one thread, with Debian's PyTorch (`apt-get install python3-torch`; a development tool:
the server runs the ONNX file in onnxruntime-node). Three disjoint seed ranges: training lines, the dev lines it is
checked on while training, and held-out lines it is measured on once at the end.

Rebuild models/line-recogniser (resumes from its checkpoint in --work when there is one):
    nice -n 15 /usr/bin/python3 scripts/line-recogniser/train.py --steps 30000 --batch 32 --lr 2e-3 --minutes 100
"""
import argparse
import hashlib
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402

TRAIN_SEED = 1_000_000_000
DEV_SEED = 2_000_000_000
HELD_OUT_SEED = 3_000_000_000
CLASSES = len(generate.CHARSET) + 1  # class 0 is CTC's blank
INDEX = {c: i + 1 for i, c in enumerate(generate.CHARSET)}


class Crnn(nn.Module):
    def __init__(self):
        super().__init__()

        def block(i, o):
            return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

        self.cnn = nn.Sequential(
            *block(1, 16), nn.MaxPool2d(2, 2),  # 16 x W/2
            nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True),  # 8 x W/4
            *block(32, 64), nn.MaxPool2d((2, 1), (2, 1)),  # 4 x W/4
            nn.Conv2d(64, 96, 3, stride=(2, 1), padding=1, bias=False), nn.BatchNorm2d(96), nn.ReLU(inplace=True),  # 2 x W/4
            nn.Conv2d(96, 128, (2, 1), bias=False), nn.BatchNorm2d(128), nn.ReLU(inplace=True),  # 1 x W/4
        )
        # Context along the line: 1-D convolutions (an LSTM trained three times slower on one CPU thread).
        self.seq = nn.Sequential(
            nn.Conv1d(128, 160, 5, padding=2, bias=False), nn.BatchNorm1d(160), nn.ReLU(inplace=True),
            nn.Conv1d(160, 160, 5, padding=2, bias=False), nn.BatchNorm1d(160), nn.ReLU(inplace=True),
        )
        self.fc = nn.Conv1d(160, CLASSES, 1)

    def forward(self, x):
        # x: N x 1 x 32 x W (ink 1, paper 0) -> N x W/4 x CLASSES log-probabilities
        f = self.seq(self.cnn(x).squeeze(2))
        return self.fc(f).permute(0, 2, 1).log_softmax(2)


def to_input(gray):
    """generate.to_input with numpy: 32 px tall, contrast stretched between the 2nd and 98th percentiles, ink 1."""
    w, h = gray.size
    tw = max(8, min(generate.MAX_WIDTH, int(round(w * generate.HEIGHT / h))))
    a = np.asarray(gray.resize((tw, generate.HEIGHT), generate.Image.BILINEAR), dtype=np.float32)
    s = np.sort(a.ravel())
    lo = s[int(0.02 * (s.size - 1))]
    hi = s[int(0.98 * (s.size - 1))]
    return np.clip((hi - a) / max(32.0, hi - lo), 0, 1)


def batch(seeds):
    xs, ys = [], []
    for s in seeds:
        img, text = generate.sample(s, max_chars=32)
        xs.append(to_input(img))
        ys.append(text)
    W = max(x.shape[1] for x in xs)
    W = int(math.ceil(W / 4) * 4)
    t = torch.zeros(len(xs), 1, generate.HEIGHT, W)
    for i, x in enumerate(xs):
        t[i, 0, :, : x.shape[1]] = torch.from_numpy(x)
    lengths = torch.tensor([x.shape[1] // 4 for x in xs], dtype=torch.long)
    return t, lengths, ys


def batches(first, size, count):
    """Training batches `first`, `first + 1`, ... made a few ahead in a second process (generation costs about as much as a step)."""
    import collections
    import multiprocessing

    with multiprocessing.get_context('fork').Pool(1) as pool:
        ahead = collections.deque()
        n = first
        while n < count or ahead:
            while n < count and len(ahead) < 3:
                ahead.append(pool.apply_async(batch, (range(TRAIN_SEED + n * size, TRAIN_SEED + (n + 1) * size),)))
                n += 1
            yield ahead.popleft().get()


def decode(logp, length):
    best = logp[:length].argmax(1).tolist()
    out, prev = [], 0
    for c in best:
        if c != 0 and c != prev:
            out.append(generate.CHARSET[c - 1])
        prev = c
    return ''.join(out)


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[len(b)]


def evaluate(model, base, count, size=32):
    model.eval()
    errors = chars = exact = 0
    with torch.no_grad():
        for start in range(0, count, size):
            x, lengths, ys = batch(range(base + start, base + min(count, start + size)))
            logp = model(x)
            for i, y in enumerate(ys):
                p = decode(logp[i], int(lengths[i]))
                errors += edit_distance(p, y)
                chars += len(y)
                exact += p == y
    model.train()
    return {'cer': errors / max(1, chars), 'exact': exact / count, 'lines': count}


def export(model, out):
    os.makedirs(out, exist_ok=True)
    model.eval()
    path = os.path.join(out, 'vi-line-crnn.onnx')
    dummy = torch.zeros(1, 1, generate.HEIGHT, 128)
    torch.onnx.export(
        model, dummy, path, input_names=['image'], output_names=['logp'], opset_version=13,
        dynamic_axes={'image': {0: 'batch', 3: 'width'}, 'logp': {0: 'batch', 1: 'steps'}},
    )
    with open(os.path.join(out, 'charset.txt'), 'w', encoding='utf8') as f:
        f.write(json.dumps(generate.CHARSET, ensure_ascii=False) + '\n')
    sums = []
    for name in ('vi-line-crnn.onnx', 'charset.txt'):
        with open(os.path.join(out, name), 'rb') as f:
            sums.append('%s  %s\n' % (hashlib.sha256(f.read()).hexdigest(), name))
    with open(os.path.join(out, 'SHA256SUMS'), 'w') as f:
        f.writelines(sums)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--steps', type=int, default=6000)
    ap.add_argument('--batch', type=int, default=16)
    ap.add_argument('--lr', type=float, default=1.5e-3)
    ap.add_argument('--work', default='/tmp/saola-line-recogniser')
    ap.add_argument('--out', default=os.path.join(generate.ROOT, 'models', 'line-recogniser'))
    ap.add_argument('--every', type=int, default=250)
    ap.add_argument('--minutes', type=float, default=0, help='stop (checkpointed) after this long in all, resumed runs included; 0: no limit')
    ap.add_argument('--export-only', action='store_true')
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    os.makedirs(a.work, exist_ok=True)
    ckpt = os.path.join(a.work, 'checkpoint.pt')
    model = Crnn()
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    step = 0
    elapsed = 0.0
    if os.path.exists(ckpt):
        state = torch.load(ckpt)
        model.load_state_dict(state['model'])
        opt.load_state_dict(state['opt'])
        step = state['step']
        elapsed = state.get('elapsed', 0.0)
        print('resumed at step', step, flush=True)
    if not a.export_only:
        ctc = nn.CTCLoss(blank=0, zero_infinity=True)
        started = time.time()
        running = None
        stream = batches(step, a.batch, a.steps)
        while step < a.steps:
            # Warm-up, then cosine decay to a tenth, over the steps or the time budget, whichever ends first.
            spent = elapsed + time.time() - started
            frac = max(step / a.steps, spent / (a.minutes * 60) if a.minutes else 0)
            lr = a.lr * min(1.0, (step + 1) / 40) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac)))
            for g in opt.param_groups:
                g['lr'] = lr
            x, lengths, ys = next(stream)
            targets = torch.tensor([INDEX[c] for y in ys for c in y], dtype=torch.long)
            target_lengths = torch.tensor([len(y) for y in ys], dtype=torch.long)
            logp = model(x).permute(1, 0, 2)
            loss = ctc(logp, targets, lengths, target_lengths)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            step += 1
            running = loss.item() if running is None else 0.98 * running + 0.02 * loss.item()
            if step % 25 == 0:
                print('step %d loss %.3f lr %.2e %.1f s' % (step, running, lr, time.time() - started), flush=True)
            if step % a.every == 0 or step == a.steps:
                torch.save({'model': model.state_dict(), 'opt': opt.state_dict(), 'step': step, 'elapsed': elapsed + time.time() - started}, ckpt + '.tmp')
                os.replace(ckpt + '.tmp', ckpt)
                print('dev', step, json.dumps(evaluate(model, DEV_SEED, 160)), flush=True)
            if a.minutes and elapsed + time.time() - started > a.minutes * 60:
                torch.save({'model': model.state_dict(), 'opt': opt.state_dict(), 'step': step, 'elapsed': elapsed + time.time() - started}, ckpt + '.tmp')
                os.replace(ckpt + '.tmp', ckpt)
                print('time budget spent at step', step, flush=True)
                break
    print('held-out', json.dumps(evaluate(model, HELD_OUT_SEED, 320)), flush=True)
    print('exported', export(model, a.out), flush=True)


if __name__ == '__main__':
    main()
