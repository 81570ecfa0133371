/**
 * "About me" texts of the demo population, written in the language of the profile's country: three sentences,
 * one from each list (what they like, what they look for, an invitation), so 64 texts per language read as
 * different people. Written so that no word depends on the writer's gender (Polish, French, Italian and Spanish
 * adjectives would).
 */
type Parts = readonly [likes: readonly string[], looking: readonly string[], invite: readonly string[]];

export const DEMO_ABOUT: Record<string, Parts> = {
  en: [
    ['I love long walks, good food and evenings with friends.', 'At the weekend I am outdoors whenever I can: cycling, hiking or a day at the sea.', 'Music, films and a good book on the sofa make my week.', 'I cook for friends, travel when I can and always want to learn something new.'],
    ['I am looking for someone to laugh with, and we will see where it goes.', 'I would like to meet someone honest, with a sense of humour.', 'A good conversation matters more to me than a perfect photo.', "Let's start with a chat and maybe a coffee."],
    ['Say hi if you like my profile!', 'Write to me, I answer everyone.', 'Tell me about your favourite place.', 'Send me a message and tell me about your day.'],
  ],
  de: [
    ['Ich liebe lange Spaziergänge, gutes Essen und Abende mit Freunden.', 'Am Wochenende bin ich draußen, wann immer es geht: Radfahren, Wandern oder ein Tag am Meer.', 'Musik, Filme und ein gutes Buch auf dem Sofa machen meine Woche.', 'Ich koche gern für Freunde, reise, wann ich kann, und lerne gern Neues.'],
    ['Ich suche jemanden zum Lachen – dann sehen wir weiter.', 'Ich möchte jemanden kennenlernen, der ehrlich ist und Humor hat.', 'Ein gutes Gespräch ist mir wichtiger als ein perfektes Foto.', 'Fangen wir mit einem Chat an, vielleicht bei einem Kaffee.'],
    ['Sag Hallo, wenn dir mein Profil gefällt!', 'Schreib mir, ich antworte allen.', 'Erzähl mir von deinem Lieblingsort.', 'Schick mir eine Nachricht und erzähl mir von deinem Tag.'],
  ],
  nl: [
    ['Ik hou van lange wandelingen, lekker eten en avonden met vrienden.', 'In het weekend ben ik zoveel mogelijk buiten: fietsen, wandelen of een dagje strand.', 'Muziek, films en een goed boek op de bank maken mijn week.', 'Ik kook graag voor vrienden, reis wanneer ik kan en leer graag iets nieuws.'],
    ['Ik zoek iemand om mee te lachen, en dan zien we wel.', 'Ik wil graag iemand leren kennen die eerlijk is en humor heeft.', 'Een goed gesprek vind ik belangrijker dan een perfecte foto.', 'Laten we beginnen met een chat en misschien een kop koffie.'],
    ['Zeg hoi als je mijn profiel leuk vindt!', 'Stuur me een bericht, ik antwoord iedereen.', 'Vertel me over jouw favoriete plek.', 'Stuur me een berichtje en vertel hoe je dag was.'],
  ],
  fr: [
    ["J'adore les longues balades, la bonne cuisine et les soirées entre amis.", 'Le week-end, je suis dehors dès que possible : vélo, randonnée ou une journée à la mer.', 'La musique, les films et un bon livre sur le canapé rythment ma semaine.', "Je cuisine pour mes amis, je voyage quand je peux et j'aime apprendre."],
    ["Je cherche quelqu'un avec qui rire, et on verra bien.", "J'aimerais rencontrer quelqu'un d'honnête, avec de l'humour.", 'Une bonne conversation compte plus pour moi qu’une photo parfaite.', 'Commençons par discuter, et peut-être un café.'],
    ['Dis-moi bonjour si mon profil te plaît !', 'Écris-moi, je réponds à tout le monde.', 'Parle-moi de ton endroit préféré.', 'Envoie-moi un message et raconte-moi ta journée.'],
  ],
  es: [
    ['Me encantan los paseos largos, la buena comida y las noches con amigos.', 'Los fines de semana salgo siempre que puedo: bici, senderismo o un día en la playa.', 'La música, el cine y un buen libro en el sofá llenan mi semana.', 'Cocino para mis amigos, viajo cuando puedo y siempre quiero aprender algo nuevo.'],
    ['Busco a alguien con quien reír, y a ver qué pasa.', 'Me gustaría conocer a alguien sincero y con sentido del humor.', 'Una buena conversación me importa más que una foto perfecta.', 'Empecemos con un chat y quizá un café.'],
    ['¡Salúdame si te gusta mi perfil!', 'Escríbeme, contesto a todos.', 'Cuéntame cuál es tu lugar favorito.', 'Mándame un mensaje y cuéntame qué tal tu día.'],
  ],
  it: [
    ['Adoro le lunghe passeggiate, il buon cibo e le serate con gli amici.', "Nel fine settimana sto all'aperto appena posso: bici, escursioni o una giornata al mare.", 'Musica, film e un buon libro sul divano riempiono la mia settimana.', 'Cucino per gli amici, viaggio quando posso e mi piace imparare cose nuove.'],
    ['Cerco qualcuno con cui ridere, poi si vedrà.', "Vorrei conoscere una persona sincera e con senso dell'umorismo.", 'Una bella conversazione per me conta più di una foto perfetta.', 'Iniziamo con una chat, e magari un caffè.'],
    ['Salutami se ti piace il mio profilo!', 'Scrivimi, rispondo a tutti.', 'Raccontami qual è il tuo posto preferito.', 'Mandami un messaggio e raccontami la tua giornata.'],
  ],
  pl: [
    ['Uwielbiam długie spacery, dobre jedzenie i wieczory z przyjaciółmi.', 'W weekendy spędzam czas na zewnątrz, kiedy tylko mogę: rower, góry albo dzień nad morzem.', 'Muzyka, filmy i dobra książka na kanapie wypełniają mój tydzień.', 'Gotuję dla przyjaciół, podróżuję, kiedy mogę, i lubię uczyć się nowych rzeczy.'],
    ['Szukam kogoś, z kim można się pośmiać, a potem zobaczymy.', 'Chcę poznać kogoś szczerego, z poczuciem humoru.', 'Dobra rozmowa jest dla mnie ważniejsza niż idealne zdjęcie.', 'Zacznijmy od rozmowy, a może od kawy.'],
    ['Napisz, jeśli podoba ci się mój profil!', 'Napisz do mnie, odpowiadam każdemu.', 'Opowiedz mi o swoim ulubionym miejscu.', 'Wyślij mi wiadomość i opowiedz, jak minął ci dzień.'],
  ],
  da: [
    ['Jeg elsker lange gåture, god mad og aftener med venner.', 'I weekenden er jeg ude, når jeg kan: cykling, vandreture eller en dag ved havet.', 'Musik, film og en god bog i sofaen gør min uge.', 'Jeg laver mad til venner, rejser, når jeg kan, og lærer gerne noget nyt.'],
    ['Jeg søger en at grine med, og så ser vi, hvor det fører hen.', 'Jeg vil gerne møde en, der er ærlig og har humor.', 'En god samtale betyder mere for mig end et perfekt billede.', 'Lad os starte med en chat og måske en kop kaffe.'],
    ['Sig hej, hvis du kan lide min profil!', 'Skriv til mig, jeg svarer alle.', 'Fortæl mig om dit yndlingssted.', 'Send mig en besked, og fortæl om din dag.'],
  ],
  fi: [
    ['Rakastan pitkiä kävelyjä, hyvää ruokaa ja iltoja ystävien kanssa.', 'Viikonloppuisin olen ulkona aina kun voin: pyöräilyä, retkeilyä tai päivä meren rannalla.', 'Musiikki, elokuvat ja hyvä kirja sohvalla tekevät viikostani hyvän.', 'Kokkaan ystäville, matkustan kun voin ja opin mielelläni uutta.'],
    ['Etsin jotakuta, jonka kanssa nauraa, ja katsotaan mihin se johtaa.', 'Haluaisin tavata jonkun rehellisen, jolla on huumorintajua.', 'Hyvä keskustelu on minulle tärkeämpi kuin täydellinen kuva.', 'Aloitetaan juttelulla ja ehkä kahvilla.'],
    ['Sano moi, jos profiilini kiinnostaa!', 'Kirjoita minulle, vastaan kaikille.', 'Kerro minulle lempipaikastasi.', 'Lähetä viesti ja kerro päivästäsi.'],
  ],
  nb: [
    ['Jeg elsker lange turer, god mat og kvelder med venner.', 'I helgene er jeg ute når jeg kan: sykling, fjelltur eller en dag ved sjøen.', 'Musikk, film og en god bok i sofaen gjør uka mi.', 'Jeg lager mat til venner, reiser når jeg kan og lærer gjerne noe nytt.'],
    ['Jeg ser etter noen å le med, så får vi se hvor det bærer.', 'Jeg vil gjerne møte noen som er ærlig og har humor.', 'En god samtale betyr mer for meg enn et perfekt bilde.', 'La oss starte med en prat og kanskje en kopp kaffe.'],
    ['Si hei hvis du liker profilen min!', 'Skriv til meg, jeg svarer alle.', 'Fortell meg om favorittstedet ditt.', 'Send meg en melding og fortell om dagen din.'],
  ],
  sv: [
    ['Jag älskar långa promenader, god mat och kvällar med vänner.', 'På helgerna är jag ute när jag kan: cykling, vandring eller en dag vid havet.', 'Musik, film och en bra bok i soffan gör min vecka.', 'Jag lagar mat åt vänner, reser när jag kan och lär mig gärna något nytt.'],
    ['Jag söker någon att skratta med, sen får vi se vart det leder.', 'Jag vill gärna träffa någon som är ärlig och har humor.', 'Ett bra samtal betyder mer för mig än en perfekt bild.', 'Vi kan börja med en chatt och kanske en fika.'],
    ['Säg hej om du gillar min profil!', 'Skriv till mig, jag svarar alla.', 'Berätta om ditt favoritställe.', 'Skicka ett meddelande och berätta om din dag.'],
  ],
};

/** The language people write in, by country (the demo population's countries). */
const LANGUAGE_OF: Record<string, string> = {
  NL: 'nl', BE: 'nl', DE: 'de', AT: 'de', CH: 'de', GB: 'en', IE: 'en', US: 'en', CA: 'en', AU: 'en', NZ: 'en',
  FR: 'fr', IT: 'it', ES: 'es', PL: 'pl', DK: 'da', FI: 'fi', NO: 'nb', SE: 'sv',
};

/** Share of the demo population that left "about me" empty, as many members do. */
const EMPTY_SHARE = 0.2;

/**
 * A demo profile's "about me" in its country's language, picked by `hash` (a number from the profile's own seed,
 * so the text never moves the seed's random stream); null for about a fifth of them.
 */
export function demoAbout(country: string, hash: number): string | null {
  if ((hash % 100) / 100 < EMPTY_SHARE) return null;
  const [likes, looking, invite] = DEMO_ABOUT[LANGUAGE_OF[country] ?? 'en'] as Parts;
  const pick = (list: readonly string[], n: number) => list[Math.floor(hash / n) % list.length] as string;
  return `${pick(likes, 100)} ${pick(looking, 400)} ${pick(invite, 1600)}`;
}
