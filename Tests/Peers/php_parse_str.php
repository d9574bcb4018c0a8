<?php
// Judge for Heron's form encoder: reads a JSON array of query strings on standard input,
// runs PHP's own parse_str on each, and prints a JSON array of the resulting structures.
//
//   echo '["a%5B%5D=1&a%5B%5D=2"]' | php -d max_input_vars=100000 Tests/Peers/php_parse_str.php
//   [{"a":["1","2"]}]
//
// An empty result prints as {} (not []), so every top-level result is an object.
$input = stream_get_contents(STDIN);
$queries = json_decode($input, true, 512, JSON_THROW_ON_ERROR);
$results = [];
foreach ($queries as $query) {
    $parsed = [];
    parse_str($query, $parsed);
    $results[] = empty($parsed) ? new stdClass() : $parsed;
}
echo json_encode($results, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR);
