package ranking

// EditDistance is editDistance, for the tests (capped at maxEdits+1).
var EditDistance = editDistance
