// A modest gazetteer of places: Malaysian states, federal territories and towns, ASEAN and other countries
// (English and Malay names) and major world cities. Pure data. Names that are also common capitalized
// words ("Nilai", "Pekan", "Reading", "Nice") are left out on purpose: they would flood the results.

export const MALAYSIAN_STATES: readonly string[] = [
  'Johor', 'Kedah', 'Kelantan', 'Melaka', 'Malacca', 'Negeri Sembilan', 'Pahang', 'Perak', 'Perlis',
  'Pulau Pinang', 'Penang', 'Sabah', 'Sarawak', 'Selangor', 'Terengganu', 'Kuala Lumpur', 'Putrajaya', 'Labuan',
  'Wilayah Persekutuan', 'Wilayah Persekutuan Kuala Lumpur', 'Federal Territory of Kuala Lumpur',
];

export const MALAYSIAN_TOWNS: readonly string[] = [
  'Shah Alam', 'Petaling Jaya', 'Subang Jaya', 'Klang', 'Port Klang', 'Kajang', 'Bangi', 'Cheras', 'Ampang',
  'Puchong', 'Rawang', 'Sepang', 'Cyberjaya', 'Seri Kembangan', 'Semenyih', 'Gombak', 'Selayang', 'Kuala Selangor',
  'Sungai Buloh', 'Damansara', 'Bangsar', 'Kepong', 'Setapak', 'Wangsa Maju', 'Bukit Bintang', 'Sentul',
  'Johor Bahru', 'Iskandar Puteri', 'Batu Pahat', 'Muar', 'Kluang', 'Segamat', 'Pontian', 'Kulai', 'Mersing',
  'Kota Tinggi', 'Ipoh', 'Taiping', 'Teluk Intan', 'Lumut', 'Sitiawan', 'Manjung', 'Kuala Kangsar', 'Kampar',
  'Seremban', 'Port Dickson', 'Alor Setar', 'Alor Star', 'Sungai Petani', 'Kulim', 'Langkawi', 'Kangar',
  'George Town', 'Georgetown', 'Butterworth', 'Bukit Mertajam', 'Bayan Lepas', 'Kota Bharu', 'Pasir Mas',
  'Tumpat', 'Gua Musang', 'Kuala Terengganu', 'Kemaman', 'Dungun', 'Besut', 'Kuantan', 'Temerloh', 'Bentong',
  'Raub', 'Cameron Highlands', 'Alor Gajah', 'Jasin', 'Kuching', 'Miri', 'Sibu', 'Bintulu', 'Samarahan',
  'Kota Kinabalu', 'Sandakan', 'Tawau', 'Lahad Datu', 'Keningau', 'Semporna',
];

export const COUNTRIES: readonly string[] = [
  'Malaysia', 'Singapore', 'Singapura', 'Indonesia', 'Thailand', 'Brunei', 'Brunei Darussalam', 'Philippines',
  'Filipina', 'Vietnam', 'Viet Nam', 'Myanmar', 'Cambodia', 'Kemboja', 'Laos', 'China', 'Hong Kong', 'Taiwan',
  'Japan', 'Jepun', 'South Korea', 'Korea Selatan', 'India', 'Pakistan', 'Bangladesh', 'Sri Lanka',
  'United Arab Emirates', 'Saudi Arabia', 'Arab Saudi', 'Qatar', 'Bahrain', 'Kuwait', 'Oman', 'Iran', 'Turkey',
  'Turki', 'Egypt', 'Mesir', 'Nigeria', 'South Africa', 'Afrika Selatan', 'United States', 'United States of America',
  'Amerika Syarikat', 'Canada', 'Kanada', 'Mexico', 'Brazil', 'Argentina', 'United Kingdom', 'Britain',
  'Great Britain', 'England', 'Scotland', 'Ireland', 'Netherlands', 'Belanda', 'Belgium', 'Germany', 'Jerman',
  'France', 'Perancis', 'Switzerland', 'Austria', 'Italy', 'Itali', 'Spain', 'Sepanyol', 'Portugal',
  'Sweden', 'Norway', 'Denmark', 'Finland', 'Poland', 'Russia', 'Rusia', 'Ukraine', 'Australia', 'New Zealand',
  'Luxembourg', 'Mauritius',
];

export const WORLD_CITIES: readonly string[] = [
  'London', 'New York', 'Washington', 'San Francisco', 'Los Angeles', 'Chicago', 'Seattle', 'Boston', 'Toronto',
  'Tokyo', 'Osaka', 'Beijing', 'Shanghai', 'Shenzhen', 'Guangzhou', 'Seoul', 'Taipei', 'Jakarta', 'Surabaya',
  'Bangkok', 'Manila', 'Hanoi', 'Ho Chi Minh City', 'Phnom Penh', 'Yangon', 'Bandar Seri Begawan', 'New Delhi',
  'Delhi', 'Mumbai', 'Bangalore', 'Bengaluru', 'Chennai', 'Kolkata', 'Karachi', 'Dhaka', 'Dubai', 'Abu Dhabi',
  'Doha', 'Riyadh', 'Jeddah', 'Mecca', 'Makkah', 'Mekah', 'Medina', 'Madinah', 'Istanbul', 'Cairo', 'Kaherah',
  'Paris', 'Berlin', 'Frankfurt', 'Munich', 'Amsterdam', 'Rotterdam', 'Brussels', 'Zurich', 'Geneva', 'Basel',
  'Vienna', 'Rome', 'Milan', 'Madrid', 'Barcelona', 'Lisbon', 'Stockholm', 'Oslo', 'Copenhagen', 'Helsinki',
  'Dublin', 'Edinburgh', 'Moscow', 'Sydney', 'Melbourne', 'Perth', 'Auckland',
];

export const PLACES: readonly string[] = [...MALAYSIAN_STATES, ...MALAYSIAN_TOWNS, ...COUNTRIES, ...WORLD_CITIES];
