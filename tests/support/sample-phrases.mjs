// Phrases for tests that look at whole pages (accessibility, HTML, screenshots, audit):
// short and long, spaced and unbroken, an emoji and an accent, so the grid meets the
// shapes a visitor's phrases really take.
export const samplePhrases = [
  { id: 'p01', word: 'SEE YOU LATER', name: 'Rex' },
  { id: 'p02', word: 'TOO BIG TO FAIL', name: 'Bronto' },
  { id: 'p03', word: 'GOOD LUCK!', name: 'Anky' },
  { id: 'p04', word: 'MORE TREES', name: 'Stego' },
  { id: 'p05', word: 'WAS THAT A COMET?', name: 'Trixie' },
  { id: 'p06', word: 'EXTINCTIONISFOREVER!', name: 'Dippy' },
  { id: 'p07', word: 'RAWR 🦖', name: 'Tess' },
  { id: 'p08', word: 'ÇA VA CHAUFFER', name: 'Amélie' },
  { id: 'p09', word: 'PLANT ONE FOR ME', name: 'Ptera' },
  { id: 'p10', word: 'HOT IN HERE', name: 'Spino' },
];
