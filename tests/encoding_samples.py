"""Short real-world texts per legacy encoding family, written for the detection tests and the
accuracy table: each a few lines such as a comment block, a README snippet or a message, stored
in the encoding it names. Decoding their bytes must give the text back exactly."""

from __future__ import annotations

# (family, codec, text)
SAMPLES: list[tuple[str, str, str]] = [
    # Western European, windows-1252: typographic quotes and apostrophes, €, dashes.
    ("western", "cp1252", "# It’s fine\n"),
    ("western", "cp1252", "Don’t forget: the price is 5 € – or 10 € — “cheap”.\n"),
    ("western", "cp1252", "// L’été à Paris coûte 20 € par jour — c’est cher.\n"),
    ("western", "cp1252", "Größe: 5 € – schön “gut”\n"),
    ("western", "cp1252", "x = 1  # don’t touch this\n"),
    ("western", "cp1252", "He said “yes” — then left.\n"),
    (
        "western",
        "cp1252",
        "# Configuration générale\n# Ne modifiez pas ce fichier à la main : il est régénéré à chaque build.\n"
        "# Voir « README » pour les détails — merci !\n",
    ),
    (
        "western",
        "cp1252",
        "Über dieses Projekt\n\nDie Größe der Datei wird beim Öffnen geprüft; "
        "für ältere Versionen gilt „Kompatibilitätsmodus“.\n",
    ),
    (
        "western",
        "cp1252",
        "/* Configuración del módulo: la contraseña debe tener más de ocho caracteres.\n"
        " * ¿Preguntas? Escriba al equipo de diseño. */\n",
    ),
    (
        "western",
        "cp1252",
        "A instalação é simples: execute o script e aguarde a conclusão.\nNão é preciso reiniciar o serviço.\n",
    ),
    ("western", "cp1252", "Price list – 2024\nBasic: 9,99 €\nPro: 19,99 € (incl. VAT)\n"),
    (
        "western",
        "cp1252",
        "The report’s summary — written by the team’s lead — says “ship it”…\n",
    ),
    ("western", "cp1252", "La città è bella; perché non venite più spesso?\n"),
    ("western", "cp1252", "Användaren måste välja ett lösenord; försök igen senare.\n"),
    ("western", "cp1252", "// Søg efter filen i mappen “data” før du åbner den.\n"),
    ("western", "cp1252", "Café crème — 3,50 €\n"),
    ("western", "cp1252", "naïve résumé\n"),
    ("western", "cp1252", "print('Olá, João!')  # saudação\n"),
    ("western", "cp1252", "echo “done” – ok\n"),
    ("western", "cp1252", "Copyright © 2019 Müller & Söhne GmbH. Alle Rechte vorbehalten.\n"),
    ("western", "cp1252", "ÇA VA – À BIENTÔT, “MERCI”\n"),
    ("western", "cp1252", "# AÇÃO NECESSÁRIA: ATUALIZAÇÃO\n"),
    ("western", "iso8859_15", "Le prix est de 20 € pour l'été à Paris ; c'est une œuvre d'art.\n"),
    # Cyrillic: windows-1251 and KOI8-R.
    ("cyrillic", "cp1251", "// Проверка входных данных перед сохранением в базу.\nreturn ok;\n"),
    ("cyrillic", "cp1251", "Привет, мир! Это тестовый файл для проверки кодировки.\n"),
    (
        "cyrillic",
        "cp1251",
        "# Настройки сервера\n# Не изменяйте этот файл вручную — он создаётся автоматически.\n",
    ),
    ("cyrillic", "cp1251", "Ласкаво просимо! Цей файл містить налаштування програми.\n"),
    ("cyrillic", "cp1251", "Добре дошли! Този файл съдържа настройките на програмата.\n"),
    ("cyrillic", "koi8_r", "Привет, мир! Это тестовый файл для проверки кодировки.\n"),
    ("cyrillic", "koi8_r", "/* Функция возвращает длину строки в байтах. */\nint len(char *s);\n"),
    ("cyrillic", "koi8_r", "Сообщение об ошибке: файл не найден, проверьте путь.\n"),
    ("cyrillic", "cp866", "Привет, мир! Это тестовый файл для проверки кодировки.\n"),
    ("cyrillic", "iso8859_5", "Сохранение настроек завершено успешно.\n"),
    # Greek, windows-1253.
    ("greek", "cp1253", "Καλημέρα σας! Αυτό είναι ένα δοκιμαστικό αρχείο.\n"),
    ("greek", "cp1253", "# Ρυθμίσεις του διακομιστή\n# Μην αλλάζετε αυτό το αρχείο με το χέρι.\n"),
    ("greek", "cp1253", "Η εγκατάσταση ολοκληρώθηκε επιτυχώς — επανεκκινήστε την εφαρμογή.\n"),
    # Central European, windows-1250.
    ("central", "cp1250", "Zażółć gęślą jaźń. Plik konfiguracyjny — nie edytować ręcznie.\n"),
    ("central", "cp1250", "// Příliš žluťoučký kůň úpěl ďábelské ódy.\n"),
    ("central", "cp1250", "Árvíztűrő tükörfúrógép. A beállítások mentése sikeres volt.\n"),
    ("central", "cp1250", "Súbor nastavení sa nepodarilo načítať; skontrolujte cestu.\n"),
    ("central", "cp1250", "Datoteka nije pronađena. Provjerite putanju i pokušajte ponovno.\n"),
    ("central", "cp1250", "Namestitev je končana. Znova zaženite računalnik.\n"),
    ("central", "cp1250", "Instalacja zakończona pomyślnie.\n"),
    ("central", "iso8859_2", "Zażółć gęślą jaźń. Plik konfiguracyjny - nie edytować ręcznie.\n"),
    # Other scripts and code pages.
    ("other", "cp1254", "Dosya bulunamadı; lütfen yolu kontrol edip tekrar deneyin. Şifre değiştirildi.\n"),
    ("other", "cp1257", "Failas nerastas. Patikrinkite kelią ir bandykite dar kartą. Ačiū už kantrybę.\n"),
    ("other", "cp1255", "שלום עולם! זהו קובץ בדיקה עבור זיהוי קידוד.\n"),
    ("other", "cp1256", "مرحبا بالعالم! هذا ملف اختبار للتحقق من الترميز.\n"),
    ("other", "cp874", "สวัสดีชาวโลก นี่คือไฟล์ทดสอบสำหรับการตรวจสอบการเข้ารหัส\n"),
    # East Asian multi-byte.
    ("cjk", "gbk", "// 这是一个测试文件，包含中文注释。我们需要确保编码检测正确无误。\nint x = 1;\n"),
    ("cjk", "gbk", "# 配置文件\n# 请不要手动修改此文件，它会在每次构建时自动生成。\n"),
    ("cjk", "gbk", "用户名或密码错误，请重新输入。\n"),
    ("cjk", "big5", "// 這是一個測試檔案，包含中文註解。我們需要確保編碼偵測正確無誤。\nint x = 1;\n"),
    ("cjk", "big5", "# 設定檔\n# 請不要手動修改此檔案，它會在每次建置時自動產生。\n"),
    ("cjk", "big5", "使用者名稱或密碼錯誤，請重新輸入。\n"),
    ("cjk", "shift_jis", "// これは日本語のテキストです。文字コードの検出を確認します。\nint y = 2;\n"),
    ("cjk", "shift_jis", "# 設定ファイル\n# このファイルを手動で編集しないでください。\n"),
    ("cjk", "shift_jis", "ユーザー名またはパスワードが間違っています。\n"),
    ("cjk", "euc_kr", "// 이 파일은 한국어 주석을 포함한 테스트 파일입니다.\nint z = 3;\n"),
    ("cjk", "euc_kr", "# 설정 파일\n# 이 파일을 직접 수정하지 마십시오.\n"),
    ("cjk", "euc_kr", "사용자 이름 또는 비밀번호가 잘못되었습니다.\n"),
    ("cjk", "euc_jp", "// これは日本語のテキストです。文字コードの検出を確認します。\n"),
]

# windows-1252 texts of which one byte pair, a non-ASCII byte and the letter after it, is also a
# valid character of some East Asian multi-byte codec (Big5, GBK, Shift-JIS, EUC-KR, Johab).
LONE_PAIRS: list[str] = [
    "# It’s fine\n",
    "x = 1  # that’s all\n",
    "see “Hello\n",
    "print('done')  # Joëlle\n",
    "// don’t\n",
    "Señor\n",
    "Straße\n",
    "price: 5 €uro\n",
    "Ärger\n",
    "Noël tree\n",
]
