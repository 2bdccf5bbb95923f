/**
 * A generated Vietnamese assistant dataset over five domains (banking, travel,
 * smart home, shopping, telecom) for `npm run eval:nlu`. Each intent has
 * training templates and paraphrase templates that never reach training; free
 * text slots have values kept for the test only. Variants: as written, without
 * diacritics, and with chat slang and typos. Nothing here is shared with the
 * engine in src/nlu/model: its own templates, word lists and folding.
 */

export interface GeneratedSample {
  text: string;
  intent: string;
  entities: { entity: string; value: string; start: number; end: number }[];
}

export interface EntitySpec {
  type: 1 | 2 | 3;
  /** Keyword entities: value -> synonyms, all listed to the engine. */
  keywords?: Record<string, string[]>;
  /** Free-text values seen in training / kept for the test. */
  trainValues?: string[];
  testValues?: string[];
}

export const ENTITIES: Record<string, EntitySpec> = {
  account: { type: 2, keywords: { 'tài khoản thanh toán': ['tk thanh toán', 'thanh toán'], 'tài khoản tiết kiệm': ['sổ tiết kiệm', 'tiết kiệm'] } },
  person: {
    type: 3,
    trainValues: ['anh Minh', 'chị Lan', 'mẹ', 'Hoàng', 'Tuấn Anh', 'bạn Hùng', 'cô Thảo', 'bố', 'em Quân', 'Ngọc Trâm'],
    testValues: ['chị Hoa', 'anh Dũng', 'Phương', 'chú Tư', 'bạn Khánh Linh'],
  },
  amount: {
    type: 3,
    trainValues: ['500 nghìn', '2 triệu', 'một triệu', '300k', '150.000 đồng', 'năm trăm nghìn', '1,5 triệu', '50k', '10 triệu', 'hai trăm nghìn'],
    testValues: ['700 nghìn', 'ba triệu', '250k', '4 triệu rưỡi', 'tám trăm nghìn'],
  },
  card: { type: 2, keywords: { 'thẻ tín dụng': ['thẻ credit', 'tín dụng'], 'thẻ ghi nợ': ['thẻ debit', 'ghi nợ'], 'thẻ ATM': ['atm'] } },
  currency: { type: 2, keywords: { 'đô la Mỹ': ['usd', 'đô', 'đô Mỹ'], euro: ['eur', 'ơ rô'], 'yên Nhật': ['yên', 'jpy'], 'nhân dân tệ': ['tệ', 'cny'] } },
  loan: { type: 2, keywords: { 'vay mua nhà': ['mua nhà'], 'vay mua xe': ['mua xe', 'mua ô tô'], 'vay tiêu dùng': ['tiêu dùng'] } },
  city: {
    type: 1,
    keywords: {
      'Hà Nội': ['hn', 'thủ đô'],
      'Đà Nẵng': ['đn'],
      'Hồ Chí Minh': ['Sài Gòn', 'sg', 'tphcm'],
      Huế: [],
      'Nha Trang': [],
      'Phú Quốc': [],
      'Đà Lạt': [],
      'Hải Phòng': [],
      'Cần Thơ': [],
    },
  },
  device: {
    type: 2,
    keywords: { đèn: ['bóng đèn'], quạt: ['quạt máy'], 'điều hòa': ['máy lạnh', 'điều hoà'], tivi: ['ti vi', 'tv'], 'máy lọc không khí': ['máy lọc'], rèm: ['rèm cửa'] },
  },
  room: { type: 2, keywords: { 'phòng khách': [], 'phòng ngủ': [], 'nhà bếp': ['bếp'], 'phòng tắm': ['nhà tắm'], 'ban công': [] } },
  product: {
    type: 3,
    trainValues: ['áo sơ mi', 'giày thể thao', 'tai nghe bluetooth', 'nồi cơm điện', 'điện thoại', 'balo', 'quần jean', 'son môi', 'sạc dự phòng', 'kem chống nắng'],
    testValues: ['váy liền', 'máy sấy tóc', 'bàn phím cơ', 'đồng hồ thông minh', 'túi xách'],
  },
  color: { type: 2, keywords: { đỏ: ['màu đỏ'], xanh: ['màu xanh', 'xanh dương'], đen: ['màu đen'], trắng: ['màu trắng'], vàng: ['màu vàng'] } },
  package: { type: 2, keywords: { MAX90: ['max 90'], ST120: ['st 120'], V90: [], D30: [], 'gói ngày': ['gói 1 ngày'] } },
  song: {
    type: 3,
    trainValues: ['Nơi này có anh', 'Hãy trao cho anh', 'Lạc trôi', 'Em của ngày hôm qua', 'Bống bống bang bang', 'Để Mị nói cho mà nghe', 'Có chắc yêu là đây'],
    testValues: ['Chúng ta của hiện tại', 'Bạc phận', 'Nắng ấm xa dần', 'See tình'],
  },
};

/**
 * `train` templates reach training. `test`: the development paraphrases
 * (`npm run eval:nlu`). `final`: one more paraphrase per intent, written
 * before the engine was tuned and measured once at the end (`--final`).
 * Every `test` and `final` template shares at least one distinctive word or
 * slot with its intent's training templates, as a real paraphrase does
 * (`paraphraseOverlap`). `outOfVocabulary`: paraphrases of the first
 * version of this set that share none; no model can learn them from the
 * training templates, so they are reported apart, as the vocabulary gap.
 */
interface IntentSpec {
  train: string[];
  test: string[];
  final: string[];
  outOfVocabulary?: string[];
}

/** Slots are {entity}; a template may use a slot once. */
export const INTENTS: Record<string, IntentSpec> = {
  // Banking
  check_balance: {
    train: [
      'kiểm tra số dư {account}',
      'số dư của tôi còn bao nhiêu',
      'cho mình xem số dư {account}',
      '{account} còn bao nhiêu tiền',
      'tra cứu số dư giúp tôi',
      'mình muốn biết số dư hiện tại của {account}',
    ],
    test: ['trong {account} của em còn lại bao nhiêu vậy', 'em muốn xem {account} còn dư bao nhiêu', 'số tiền hiện có trong {account} là bao nhiêu'],
    final: ['tài khoản em giờ dư được bao nhiêu tiền'],
    outOfVocabulary: ['xem giúp tiền còn trong tài khoản'],
  },
  transfer_money: {
    train: [
      'chuyển {amount} cho {person}',
      'tôi muốn chuyển khoản {amount} sang {person}',
      'gửi {amount} tới tài khoản của {person}',
      'chuyển tiền cho {person}',
      'chuyển khoản {amount} ngay',
      'mình cần chuyển cho {person} {amount}',
    ],
    test: ['bắn {amount} qua cho {person} nhé', 'làm ơn chuyển giúp {person} {amount}', 'em muốn gửi tiền cho {person} {amount}'],
    final: ['chuyển hộ em {amount} sang {person} với'],
  },
  lock_card: {
    train: ['khóa {card} của tôi', 'tôi bị mất {card}', 'tạm khóa {card} giúp tôi', '{card} của tôi bị mất cắp', 'khóa thẻ ngay lập tức', 'mình muốn khóa {card}'],
    test: ['làm sao để khóa {card} ngay', 'em đánh rơi {card} rồi', 'chặn {card} giúp mình với'],
    final: ['vừa bị móc túi mất {card}, khóa giúp em'],
  },
  loan_interest: {
    train: [
      'lãi suất {loan} là bao nhiêu',
      '{loan} lãi bao nhiêu một tháng',
      'cho hỏi lãi suất cho vay',
      'lãi vay {loan} hiện nay thế nào',
      'mức lãi suất {loan} bao nhiêu phần trăm',
      'vay vốn lãi suất ra sao',
    ],
    test: ['ngân hàng tính lãi {loan} thế nào', 'nếu em {loan} thì lãi mỗi tháng bao nhiêu', 'lãi của khoản vay là mấy phần trăm'],
    final: ['vay {loan} thì lãi suất hiện tại bao nhiêu'],
  },
  exchange_rate: {
    train: [
      'tỷ giá {currency} hôm nay',
      '{currency} đang bao nhiêu tiền việt',
      'cho xem tỷ giá {currency}',
      'một {currency} đổi được bao nhiêu',
      'giá {currency} hôm nay thế nào',
      'tỷ giá ngoại tệ mới nhất',
    ],
    test: ['đổi {currency} sang tiền đồng được bao nhiêu', 'hôm nay {currency} lên hay xuống', 'giá mua bán {currency} ở ngân hàng'],
    final: ['tỷ giá {currency} với tiền việt hôm nay là mấy'],
  },
  open_account: {
    train: [
      'mở tài khoản mới',
      'tôi muốn mở tài khoản ngân hàng',
      'đăng ký tài khoản như thế nào',
      'mở {account} cần giấy tờ gì',
      'hướng dẫn mở tài khoản online',
      'làm thế nào để có tài khoản',
    ],
    test: ['em chưa có tài khoản thì đăng ký ở đâu', 'thủ tục mở {account} ra sao', 'tạo tài khoản trên app được không'],
    final: ['em muốn mở thêm một tài khoản nữa'],
  },
  // Travel
  book_flight: {
    train: [
      'đặt vé máy bay đi {city}',
      'tôi muốn bay từ Hà Nội vào {city}',
      'mua vé đi {city} ngày mai',
      'còn vé máy bay ra {city} không',
      'đặt chuyến bay đến {city}',
      'book vé đi {city} cuối tuần',
    ],
    test: ['kiếm giúp mình một chuyến bay tới {city}', 'em cần vé bay đi {city} sớm nhất', 'có chuyến nào bay {city} tối nay không'],
    final: ['đặt giúp em hai vé đi {city} thứ sáu'],
  },
  book_hotel: {
    train: [
      'đặt phòng khách sạn ở {city}',
      'tìm khách sạn tại {city}',
      'tôi cần thuê phòng ở {city} hai đêm',
      'có khách sạn nào gần biển ở {city}',
      'book phòng ở {city}',
      'đặt homestay {city}',
    ],
    test: ['ở {city} có homestay nào còn trống không', 'mình muốn ở lại {city} ba đêm, đặt phòng nhé', 'giữ cho tôi một phòng tại {city}'],
    final: ['cần một phòng khách sạn ở {city} cho hai người'],
    outOfVocabulary: ['kiếm chỗ ngủ ở {city} giúp em'],
  },
  cancel_booking: {
    train: ['hủy vé máy bay', 'tôi muốn hủy đặt phòng', 'hủy chuyến đi {city}', 'làm sao để hủy vé', 'hủy đặt chỗ giúp tôi', 'không đi nữa, hủy vé đi'],
    test: ['bỏ chuyến bay {city} của em', 'em đổi ý rồi, hủy phòng nhé', 'cho mình hủy lịch bay với'],
    final: ['em không bay nữa, hủy giúp vé {city}'],
  },
  flight_status: {
    train: [
      'chuyến bay đi {city} có bị trễ không',
      'kiểm tra tình trạng chuyến bay',
      'máy bay mấy giờ cất cánh',
      'chuyến bay của tôi có đúng giờ không',
      'chuyến bay {city} delay không',
      'giờ hạ cánh ở {city}',
    ],
    test: ['hôm nay bay {city} có trễ giờ không vậy', 'máy bay của em đã cất cánh chưa', 'khi nào chuyến bay đáp xuống {city}'],
    final: ['chuyến bay của em bị delay bao lâu'],
    outOfVocabulary: ['bay {city} hôm nay có hoãn không vậy'],
  },
  weather: {
    train: [
      'thời tiết {city} hôm nay',
      'ngày mai {city} có mưa không',
      'dự báo thời tiết {city}',
      'trời {city} nóng không',
      'nhiệt độ ở {city} bao nhiêu',
      'cuối tuần {city} có nắng không',
    ],
    test: ['ở {city} mấy hôm nay có mưa to không', '{city} bây giờ trời thế nào', 'mai đi {city} thời tiết ra sao'],
    final: ['dự báo {city} mai có mưa không'],
    outOfVocabulary: ['ra ngoài ở {city} có cần mang ô không'],
  },
  baggage_policy: {
    train: [
      'được mang bao nhiêu ký hành lý',
      'hành lý xách tay tối đa bao nhiêu',
      'quy định hành lý ký gửi',
      'mua thêm hành lý thế nào',
      'mang chất lỏng lên máy bay được không',
      'phí hành lý quá cân',
    ],
    test: ['vali của em nặng 25 ký có sao không', 'em được xách mấy kg lên máy bay', 'gửi thêm đồ thì tính tiền ra sao'],
    final: ['hành lý ký gửi được bao nhiêu cân'],
  },
  // Smart home
  turn_on: {
    train: ['bật {device} {room}', 'mở {device} ở {room}', 'bật {device} lên', 'làm ơn bật {device} trong {room}', 'mở {device} giúp tôi', 'cho {device} {room} chạy đi'],
    test: ['{room} tối quá, bật {device} đi', 'khởi động {device} trong {room}', 'em muốn {device} được bật'],
    final: ['{room} nóng quá, bật {device} lên đi'],
  },
  turn_off: {
    train: [
      'tắt {device} {room}',
      'tắt {device} ở {room} đi',
      'tắt hết {device}',
      'làm ơn tắt {device} trong {room}',
      'ngắt {device} giúp tôi',
      'cho {device} {room} nghỉ',
    ],
    test: ['không dùng nữa, tắt {device} nhé', 'dừng {device} trong {room} lại', 'em muốn {device} {room} tắt đi'],
    final: ['ra ngoài rồi, tắt giùm {device} {room}'],
  },
  set_temperature: {
    train: ['chỉnh điều hòa 25 độ', 'để nhiệt độ 26 độ', 'tăng nhiệt độ lên', 'giảm nhiệt độ {room}', 'đặt nhiệt độ {room} 24 độ', 'nóng quá, hạ nhiệt độ xuống'],
    test: ['hạ điều hòa xuống cho mát hơn chút', 'em muốn nhiệt độ khoảng 27 độ thôi', 'lạnh quá, chỉnh ấm lên'],
    final: ['chỉnh nhiệt độ phòng xuống 22 độ'],
    outOfVocabulary: ['cho phòng mát hơn chút'],
  },
  set_alarm: {
    train: ['đặt báo thức 6 giờ sáng', 'hẹn giờ báo thức lúc 5 giờ 30', 'gọi tôi dậy lúc 7 giờ', 'đặt chuông 6h sáng mai', 'báo thức 9 giờ tối nay', 'hẹn giờ dậy sớm'],
    test: ['mai đánh thức em lúc 6 giờ rưỡi nhé', 'nhắc mình dậy vào 5h', 'cài chuông reo lúc 8 giờ'],
    final: ['đặt giúp em báo thức lúc 4 giờ 45'],
  },
  play_music: {
    train: ['mở bài {song}', 'phát nhạc {song}', 'bật bài hát {song}', 'cho nghe bài {song}', 'mở nhạc đi', 'phát bài {song} trong {room}'],
    test: ['em muốn nghe {song}', 'chơi bản {song} giúp mình', 'hát bài {song} cho mình nghe'],
    final: ['phát cho em nghe bài {song}'],
  },
  check_camera: {
    train: ['xem camera {room}', 'mở camera an ninh', 'kiểm tra camera cửa trước', 'cho xem hình camera {room}', 'camera có ghi được gì không', 'xem lại camera tối qua'],
    test: ['ai vừa vào {room} vậy, cho xem camera', 'em muốn nhìn hình từ camera', 'cho em coi camera ngoài cổng'],
    final: ['xem camera xem có ai ở {room} không'],
    outOfVocabulary: ['mở cam ngoài cổng xem nào'],
  },
  // Shopping
  order_product: {
    train: [
      'đặt mua {product} màu {color}',
      'tôi muốn mua {product}',
      'cho tôi đặt một {product}',
      'mua {product} {color}',
      'đặt hàng {product}',
      'còn {product} màu {color} không',
    ],
    test: ['lấy cho em một {product} nhé', 'chốt đơn {product} {color}', 'shop còn {product} không, mình mua một cái'],
    final: ['em muốn đặt mua {product} {color}'],
    outOfVocabulary: ['mình cần order {product}'],
  },
  track_order: {
    train: [
      'đơn hàng của tôi đang ở đâu',
      'kiểm tra tình trạng đơn hàng',
      'khi nào tôi nhận được hàng',
      'đơn {product} đã giao chưa',
      'tra cứu vận đơn',
      'hàng đi tới đâu rồi',
    ],
    test: ['shipper giao {product} cho em chưa', 'đơn của em giờ tới đâu rồi', 'theo dõi vận đơn của mình giúp'],
    final: ['đơn hàng {product} của em giao tới đâu rồi'],
    outOfVocabulary: ['bao giờ thì hàng đến nơi', 'theo dõi gói hàng của mình giúp'],
  },
  return_product: {
    train: [
      'tôi muốn trả lại {product}',
      'đổi trả {product} thế nào',
      'hàng bị lỗi muốn hoàn trả',
      'chính sách đổi trả',
      'trả hàng và hoàn tiền',
      '{product} không vừa muốn đổi',
    ],
    test: ['{product} giao bị lỗi, em trả lại được không', 'mình muốn đổi size khác', 'làm sao để được hoàn tiền khi trả hàng'],
    final: ['muốn hoàn trả {product} vì bị lỗi'],
    outOfVocabulary: ['{product} giao bị hỏng, em gửi lại được không'],
  },
  payment_method: {
    train: [
      'thanh toán bằng cách nào',
      'có trả góp không',
      'thanh toán qua ví điện tử được không',
      'có nhận thẻ tín dụng không',
      'trả tiền khi nhận hàng được không',
      'các hình thức thanh toán',
    ],
    test: ['mua trả góp qua thẻ được không em', 'có cho trả tiền mặt lúc giao không', 'thanh toán bằng momo được chứ'],
    final: ['có thanh toán bằng thẻ được không'],
    outOfVocabulary: ['em chuyển khoản trước được không'],
  },
  find_discount: {
    train: [
      'có mã giảm giá không',
      'đang có khuyến mãi gì',
      '{product} có sale không',
      'cho xin voucher',
      'giảm giá 30 phần trăm cho {product}',
      'chương trình ưu đãi hôm nay',
    ],
    test: ['dạo này có khuyến mãi nào hời không', 'mua {product} có được giảm không', 'săn mã freeship ở đâu'],
    final: ['có voucher giảm giá cho {product} không'],
    outOfVocabulary: ['dạo này có deal nào hời không'],
  },
  cancel_order: {
    train: ['hủy đơn hàng', 'tôi muốn hủy đơn {product}', 'không mua nữa hủy đơn giúp', 'làm sao để hủy đơn', 'hủy đơn vừa đặt', 'bỏ đơn hàng {product}'],
    test: ['em đặt nhầm, hủy đơn giùm em', 'thôi không lấy {product} nữa', 'mình muốn huỷ cái đơn lúc nãy'],
    final: ['huỷ giúp em đơn {product} vừa đặt'],
    outOfVocabulary: ['mình muốn huỷ order lúc nãy'],
  },
  // Telecom
  buy_data_package: {
    train: [
      'đăng ký gói {package}',
      'mua gói cước {package}',
      'tôi muốn đăng ký gói data',
      'gói {package} giá bao nhiêu',
      'đăng ký 4G gói {package}',
      'có gói mạng nào rẻ không',
    ],
    test: ['em lấy gói {package} nhé', 'kích hoạt {package} cho số này', 'muốn dùng data gói {package} thì làm sao'],
    final: ['đăng ký cho em gói {package} tháng này'],
  },
  check_data: {
    train: ['kiểm tra dung lượng còn lại', 'tôi còn bao nhiêu data', 'xem dung lượng 4G', 'gói {package} còn bao nhiêu GB', 'tra cứu data còn lại', 'hết data chưa'],
    test: ['data của em còn mấy giga', 'xem giúp lưu lượng còn lại', 'data tháng này dùng hết chưa vậy'],
    final: ['kiểm tra giúp em data còn bao nhiêu'],
    outOfVocabulary: ['mạng của em còn mấy giga'],
  },
  top_up: {
    train: ['nạp {amount} vào điện thoại', 'nạp tiền điện thoại', 'nạp thẻ {amount}', 'tôi muốn nạp {amount}', 'nạp tiền cho {person}', 'mua thẻ cào {amount}'],
    test: ['bơm {amount} vào tài khoản điện thoại giúp em', 'nạp card {amount} cho số này', 'mình cần nạp thêm {amount}'],
    final: ['nạp giúp em {amount} tiền điện thoại'],
  },
  change_sim: {
    train: ['đổi sim mới', 'tôi muốn đổi sang esim', 'sim bị hỏng cần làm lại', 'làm lại sim ở đâu', 'đổi sim 4G', 'mất sim phải làm sao'],
    test: ['em muốn chuyển qua esim', 'sim không nhận nữa, cấp lại giúp', 'thay sim khác thì cần mang gì'],
    final: ['em bị mất sim, làm lại sim mới ở đâu'],
  },
  report_network: {
    train: ['mạng yếu quá ở {city}', 'không có sóng điện thoại', 'mất sóng ở {city}', 'báo lỗi mạng', '4G ở {city} rất chậm', 'gọi điện bị rớt liên tục'],
    test: ['sóng ở {city} chập chờn quá', 'internet điện thoại không vào được', 'khu em ở {city} mất mạng từ sáng'],
    final: ['ở {city} mạng yếu, gọi không được'],
  },
  call_support: {
    train: ['gặp tổng đài viên', 'tôi muốn nói chuyện với nhân viên', 'số tổng đài là gì', 'cần hỗ trợ trực tiếp', 'kết nối với người thật', 'gọi chăm sóc khách hàng'],
    test: ['cho em gặp người hỗ trợ', 'có ai trực không, em cần giúp', 'nối máy cho mình tới nhân viên'],
    final: ['cho em số tổng đài hỗ trợ'],
  },
};

function templateWords(template: string): string[] {
  return template
    .toLowerCase()
    .replace(/\{\w+\}/g, ' ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

function templateSlots(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/**
 * The words and slots of `template` that the training templates of `intent`
 * also hold and that at most `maxIntents` intents' training templates hold
 * (distinctive, unlike "có", "không", "giúp"). Words are split on what is not
 * a letter or digit, as written (no folding: "huỷ" is not "hủy" here).
 */
export function paraphraseOverlap(intent: string, template: string, maxIntents = 3): string[] {
  const holders = new Map<string, Set<string>>();
  for (const [name, spec] of Object.entries(INTENTS)) {
    for (const t of spec.train) {
      for (const key of [...templateWords(t), ...templateSlots(t).map((x) => `{${x}}`)]) {
        if (!holders.has(key)) holders.set(key, new Set());
        holders.get(key)!.add(name);
      }
    }
  }
  const keys = [...templateWords(template), ...templateSlots(template).map((x) => `{${x}}`)];
  return [...new Set(keys.filter((k) => holders.get(k)?.has(intent) && holders.get(k)!.size <= maxIntents))];
}

const OPENERS = ['', '', '', 'cho mình hỏi ', 'bạn ơi ', 'ad ơi ', 'xin chào, ', 'alo ', 'ơi '];
const CLOSERS = ['', '', '', ' nhé', ' với', ' ạ', ' giúp mình', ' được không', ' nha', '?'];

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

interface Piece {
  text: string;
  entity?: string;
}

function valuesFor(entity: string, split: 'train' | 'test', random: () => number): string {
  const spec = ENTITIES[entity]!;
  if (spec.keywords) {
    const value = pick(random, Object.keys(spec.keywords));
    const forms = [value, ...spec.keywords[value]!];
    return pick(random, forms);
  }
  // Most test values are new words, some are known ones in new sentences.
  const list = split === 'test' && random() < 0.7 ? spec.testValues! : spec.trainValues!;
  return pick(random, list);
}

function fill(template: string, split: 'train' | 'test', random: () => number): Piece[] {
  const pieces: Piece[] = [{ text: pick(random, OPENERS) }];
  const re = /\{(\w+)\}/g;
  let at = 0;
  for (const m of template.matchAll(re)) {
    pieces.push({ text: template.slice(at, m.index) });
    pieces.push({ text: valuesFor(m[1]!, split, random), entity: m[1]! });
    at = (m.index ?? 0) + m[0].length;
  }
  pieces.push({ text: template.slice(at) });
  pieces.push({ text: pick(random, CLOSERS) });
  return pieces.filter((p) => p.text !== '');
}

function assemble(pieces: Piece[], intent: string): GeneratedSample {
  let text = '';
  const entities: GeneratedSample['entities'] = [];
  for (const p of pieces) {
    const start = [...text].length;
    text += p.text;
    if (p.entity) entities.push({ entity: p.entity, value: p.text, start, end: start + [...p.text].length });
  }
  return { text, intent, entities };
}

// The generator's own folding: strip combining marks, map the two d's.
function withoutMarks(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/đ/g, 'd')
    .replace(/Đ/g, 'D')
    .normalize('NFC');
}

const SLANG: [RegExp, string][] = [
  [/\bkhông\b/g, 'ko'],
  [/\bđược\b/g, 'dc'],
  [/\bmình\b/g, 'mk'],
  [/\bgì\b/g, 'j'],
  [/\bvậy\b/g, 'v'],
  [/\bbao nhiêu\b/g, 'bn'],
  [/\bgiúp\b/g, 'giùm'],
  [/\bnhé\b/g, 'nhe'],
  [/\btôi\b/g, 't'],
  [/\bem\b/g, 'e'],
  [/\bquá\b/g, 'wá'],
];

function typo(word: string, random: () => number): string {
  const chars = [...word];
  if (chars.length < 4) return word;
  const i = 1 + Math.floor(random() * (chars.length - 2));
  if (random() < 0.5) chars.splice(i, 1);
  else [chars[i], chars[i + 1]] = [chars[i + 1]!, chars[i]!];
  return chars.join('');
}

function noisy(pieces: Piece[], random: () => number): Piece[] {
  return pieces.map((p) => {
    if (p.entity) return p;
    let text = p.text;
    for (const [re, to] of SLANG) if (random() < 0.8) text = text.replace(re, to);
    // One typo in about a third of the words longer than three letters.
    text = text.replace(/[\p{L}]+/gu, (w) => (random() < 0.3 ? typo(w, random) : w));
    // Some people type without marks in the middle of a sentence.
    if (random() < 0.3) text = withoutMarks(text);
    return { ...p, text };
  });
}

export interface GeneratedDataset {
  train: GeneratedSample[];
  test: { written: GeneratedSample[]; noMarks: GeneratedSample[]; noisy: GeneratedSample[]; outOfVocabulary: GeneratedSample[] };
  entities: Record<string, EntitySpec>;
}

/**
 * `perIntent` training samples per intent, `testPerIntent` from the paraphrase
 * templates (`test`, or `final` with `final: true`); `intents` limits to the
 * first n intents. `test.outOfVocabulary`: `testPerIntent` samples of each
 * intent that has such templates, as written.
 */
export function generateDataset(opts: { perIntent: number; testPerIntent: number; seed: number; intents?: number; final?: boolean }): GeneratedDataset {
  const random = rng(opts.seed);
  const outOfVocabulary: GeneratedSample[] = [];
  const names = Object.keys(INTENTS).slice(0, opts.intents ?? Object.keys(INTENTS).length);
  const train: GeneratedSample[] = [];
  const written: GeneratedSample[] = [];
  const noMarks: GeneratedSample[] = [];
  const noisySet: GeneratedSample[] = [];
  for (const intent of names) {
    const spec = INTENTS[intent]!;
    const seen = new Set<string>();
    for (let n = 0, tries = 0; n < opts.perIntent && tries < opts.perIntent * 20; tries++) {
      const sample = assemble(fill(pick(random, spec.train), 'train', random), intent);
      if (seen.has(sample.text)) continue;
      seen.add(sample.text);
      train.push(sample);
      n++;
    }
    const paraphrases = opts.final ? spec.final : spec.test;
    for (let n = 0; n < opts.testPerIntent; n++) {
      const pieces = fill(paraphrases[n % paraphrases.length]!, 'test', random);
      written.push(assemble(pieces, intent));
      noMarks.push(
        assemble(
          pieces.map((p) => ({ ...p, text: withoutMarks(p.text) })),
          intent,
        ),
      );
      noisySet.push(assemble(noisy(pieces, random), intent));
    }
    const gap = spec.outOfVocabulary ?? [];
    for (let n = 0; n < (gap.length > 0 ? opts.testPerIntent : 0); n++) outOfVocabulary.push(assemble(fill(gap[n % gap.length]!, 'test', random), intent));
  }
  return { train, test: { written, noMarks, noisy: noisySet, outOfVocabulary }, entities: ENTITIES };
}
